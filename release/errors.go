package release

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/refusal"
)

// ErrExecNotAllowed is what a refusal to run a kubeconfig user's exec
// credential plugin or auth provider matches (errors.Is), when
// Options.AllowExec is false: nothing was run or sent.
var ErrExecNotAllowed = kube.ErrExecNotAllowed

// StaleError refuses an approved plan that no longer matches the
// composition or the cluster; nothing was written. Plan again and approve
// the new hash.
type StaleError struct {
	Hash    string   // the approved plan
	Reasons []string // what changed, one line each
	err     error
}

func (e *StaleError) Error() string { return e.err.Error() }
func (e *StaleError) Unwrap() error { return e.err }

// Is reports that a stale plan is a refusal (refusal.Is).
func (e *StaleError) Is(target error) bool { return target == refusal.ErrRefused }

// LockHeldError refuses a write because another run holds the release (its
// file lock or its Lease); nothing was written. Err names the holder.
type LockHeldError struct{ Err error }

func (e *LockHeldError) Error() string { return e.Err.Error() }
func (e *LockHeldError) Unwrap() error { return e.Err }

// Is reports that a held lock is a refusal (refusal.Is).
func (e *LockHeldError) Is(target error) bool { return target == refusal.ErrRefused }

// RunFailedError is a run that started and did not finish: it failed (and
// can be resumed), was stopped (and can be resumed), or failed and undid
// its completed steps (Result.Phase "compensated"). Result says which.
type RunFailedError struct {
	Result *Result
	Err    error
	// Rollback is how the automatic rollback after the failure went, when
	// the spec asks for one ([release] on_failure = "rollback"); nil
	// otherwise.
	Rollback *AutoRollback
}

func (e *RunFailedError) Error() string {
	return fmt.Sprintf("run %s %s: %v", e.Result.Run, e.Result.Phase, e.Err)
}
func (e *RunFailedError) Unwrap() error { return e.Err }

// Resumable reports whether Resume can continue the run.
func (e *RunFailedError) Resumable() bool { return e.Result.Phase != PhaseCompensated }

// refuse marks err as bad input (a refusal.Error).
func refuse(err error) error { return refusal.New(err) }

func refusef(format string, args ...any) error { return refusal.New(fmt.Errorf(format, args...)) }

// classify marks errors that mean bad input (an unusable target, an
// unresolvable object, a dependency cycle, an object the server refuses or
// the spec does not allow, an annotation with a value Piceli does not
// accept, a stale or blocked plan, an object that is not what the approved
// plan holds, a held lock) with their
// type, and leaves the rest.
func classify(err error) error {
	var (
		cycle   *graph.CycleError
		stale   *apply.StaleError
		blocked *apply.BlockedError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &stale):
		return &StaleError{Hash: stale.Hash, Reasons: stale.Reasons, err: err}
	case errors.Is(err, lock.ErrHeld):
		return &LockHeldError{Err: err}
	case errors.Is(err, kube.ErrTarget), errors.Is(err, kube.ErrUnresolved), errors.As(err, &cycle),
		errors.Is(err, planner.ErrRefused), errors.Is(err, planner.ErrNotAllowed), errors.Is(err, planner.ErrBadAnnotation),
		errors.As(err, &blocked), errors.Is(err, apply.ErrNotApproved):
		return refuse(err)
	}
	return err
}
