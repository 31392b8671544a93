package importer

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/kube"
)

// RefusedError is bad input refused before anything was written: a file
// that cannot be read or decoded, an object that does not fit its type, an
// output directory that exists, an unusable target. Err says what and
// where.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// IsRefused reports whether err refused the import before anything was
// written: a *RefusedError or an unusable target (kube.ErrTarget).
func IsRefused(err error) bool {
	return errors.As(err, new(*RefusedError)) || errors.Is(err, kube.ErrTarget)
}

func refuse(err error) error {
	if err == nil || IsRefused(err) {
		return err
	}
	return &RefusedError{Err: err}
}

func refusef(format string, args ...any) error {
	return &RefusedError{Err: fmt.Errorf(format, args...)}
}
