package cli

import (
	"errors"

	"github.com/pynenc/piceli/refusal"
)

// Exit codes shared by every command.
const (
	ExitOK       = 0 // success
	ExitFailed   = 1 // ran but did not succeed (not ready, check failed, drift)
	ExitRefused  = 2 // refused before any change (bad input, stale plan, lock held)
	ExitApproval = 3 // approval required, nothing executed
)

// ExitError carries the exit code a command should end with. Errors that are
// not ExitErrors end with ExitFailed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// refused marks err as bad input the command refused (refusal.Is), so the
// command exits with ExitRefused.
func refused(err error) error { return refusal.New(err) }

// refusedf formats a bad-input error that exits with ExitRefused.
func refusedf(format string, args ...any) error { return refusal.Errorf(format, args...) }

// exitCode maps an error returned by a command to the process exit code:
// an ExitError says its own; any refusal (refusal.Is: bad input, a stale
// plan, a held lock, in whichever package it was found) is ExitRefused;
// anything else ran and did not succeed. A plan awaiting approval says
// ExitApproval in its ExitError. It is the one place a refusal becomes an
// exit code.
func exitCode(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case refusal.Is(err):
		return ExitRefused
	}
	return ExitFailed
}
