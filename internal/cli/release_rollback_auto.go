package cli

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/release"
)

// rolledBackText says why a run failed and how the automatic rollback
// after it went, with what to do next for the release of spec.
func rolledBackText(spec specFlag, f *release.RunFailedError) error {
	rb := f.Rollback
	var inner *release.RunFailedError
	if errors.As(rb.Err, &inner) {
		rb = &release.AutoRollback{To: rb.To, Result: rb.Result, Err: inner.Err}
	}
	switch {
	case rb.Err == nil:
		return fmt.Errorf("%w\nrolled back to revision %d as [release] on_failure = \"rollback\" asks: run %s is revision %d (its checks were not run; run them with: %s)",
			f.Err, rb.To, rb.Result.Run, rb.Result.Revision, releaseCommand("check", spec))
	case rb.Result != nil:
		return fmt.Errorf("%w\nthe rollback to revision %d (run %s) %s: %v\ncontinue it with: %s", f.Err, rb.To, rb.Result.Run, rb.Result.Phase, rb.Err, releaseCommand("resume", spec))
	case rb.To == 0:
		return fmt.Errorf("%w\nnot rolled back: %v; the run is left failed, resume it with: %s", f.Err, rb.Err, releaseCommand("resume", spec))
	}
	return fmt.Errorf("%w\nnot rolled back to revision %d: %v; the run is left failed, resume it with: %s", f.Err, rb.To, rb.Err, releaseCommand("resume", spec))
}
