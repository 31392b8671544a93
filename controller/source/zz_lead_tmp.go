package source

import (
	"errors"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// Options placeholder until the sources land.
type Options struct{}

// New placeholder until the sources land.
func New(v1alpha1.Source, Credentials, Options) (Source, error) {
	return nil, errors.New("no sources yet")
}
