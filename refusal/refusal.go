package refusal

import (
	"errors"
	"fmt"
)

// ErrRefused is what every refusal matches with errors.Is: an *Error, and
// the richer typed refusals of other packages (a stale plan, a held lock, a
// drifted build input), whose Is methods report it. Is(err) is the same
// check.
var ErrRefused = errors.New("refused before any change")

// Error is a request refused before any change. Err says what was refused
// and where (the file, line, key or object), in the words of the library
// that refused it, never a command-line flag's name.
type Error struct{ Err error }

// Error is the cause's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports that an *Error is ErrRefused.
func (e *Error) Is(target error) bool { return target == ErrRefused }

// Is reports whether err, or an error it wraps, refused a request before
// any change.
func Is(err error) bool { return errors.Is(err, ErrRefused) }

// New marks err as a refusal; nil stays nil, and an error that already is
// a refusal is returned as it is.
func New(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{Err: err}
}

// Errorf formats a refusal as fmt.Errorf does; %w wraps as there.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}
