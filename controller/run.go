package controller

import (
	"context"
	"errors"
)

// Run starts the controller and blocks until ctx ends.
func Run(ctx context.Context, o Options) error {
	return errors.New("controller: not built yet")
}
