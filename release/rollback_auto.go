package release

import (
	"context"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/progress"
)

// AutoRollback is how the rollback that followed a failed run went, under
// [release] on_failure = "rollback".
type AutoRollback struct {
	// To is the revision rolled back to: the release's latest, the one
	// the failed run was to replace. 0 when there was none.
	To int
	// Result is the rollback's run; nil when it did not start.
	Result *Result
	// Err says why the rollback did not finish (its run failed, it was
	// refused, there was nothing to roll back to); nil when it did.
	Err error
}

// rollbackAfter rolls the release back to its latest revision when a run
// failed and the spec asks for that, and records how it went in the run's
// *RunFailedError, which it returns. It goes through Rollback exactly as a
// person would: plan the revision against the cluster, store the plan,
// then apply that hash, with Rollback's stale checks and locks. The
// rollback's own checks are skipped (the spec's may be the ones that just
// failed), and its revision says so. A run that was stopped, or whose
// context ended, is not rolled back; nor is a rollback run.
func (r *Release) rollbackAfter(ctx context.Context, err error, opts RunOptions) error {
	var failed *RunFailedError
	if r.spec.Release.OnFailure != spec.OnFailureRollback || !errors.As(err, &failed) ||
		failed.Result.Phase != PhaseFailed || ctx.Err() != nil {
		return err
	}
	failed.Rollback = r.autoRollback(ctx, failed.Result.Run, opts)
	return err
}

// autoRollback plans and applies the rollback to the latest revision.
func (r *Release) autoRollback(ctx context.Context, run string, opts RunOptions) *AutoRollback {
	revs, err := history.Summaries(r.StateDir())
	if err != nil {
		return &AutoRollback{Err: err}
	}
	if len(revs) == 0 {
		return &AutoRollback{Err: errors.New("the release has no revision to roll back to")}
	}
	to := revs[len(revs)-1].Number
	if opts.Events != nil {
		opts.Events(progress.Event{Kind: progress.Note, Message: fmt.Sprintf(`rolling back to revision %d, as [release] on_failure = "rollback" asks`, to)})
	}
	rp, err := r.PlanRollback(ctx, to, PlanOptions{AllowReplace: opts.AllowReplace, Parallel: opts.Parallel})
	if err != nil {
		return &AutoRollback{To: to, Err: fmt.Errorf("plan the rollback: %w", err)}
	}
	if b := rp.Plan.Blocked(); len(b) > 0 {
		return &AutoRollback{To: to, Err: fmt.Errorf("the rollback plan is blocked: %v", b)}
	}
	res, err := r.Rollback(ctx, to, rp.Plan.Hash, RunOptions{
		AllowReplace: opts.AllowReplace, Parallel: opts.Parallel, Interrupt: opts.Interrupt, Events: opts.Events,
		skipReason: fmt.Sprintf("automatic rollback after run %s failed", run),
	})
	return &AutoRollback{To: to, Result: res, Err: err}
}
