package release

import (
	"context"

	"github.com/pynenc/piceli/internal/apply"
	planner "github.com/pynenc/piceli/internal/plan"
)

// Resume continues the release's latest run with the plan it was approved
// for: under the file lock it plans again and refuses (a *StaleError)
// when a step the run has not written yet changed in the cluster since;
// then it reopens the run's journal (a torn last record is repaired),
// settles every in-doubt step by reading the cluster and runs the
// remaining waves. No step is written twice. A rollback run takes its
// objects and secret versions from its revision, not the composition. A
// run that ended finished or compensated is refused (refusal.Is)
// before the release is locked or anything is written.
func (r *Release) Resume(ctx context.Context, opts RunOptions) (*Result, error) {
	if err := r.checkWriter(); err != nil {
		return nil, err
	}
	s, err := r.forRun().open(ctx)
	if err != nil {
		return nil, err
	}
	run, err := apply.LatestRun(r.StateDir())
	if err != nil {
		return nil, refuse(err)
	}
	source, err := apply.RunSource(r.StateDir(), run)
	if err != nil {
		return nil, err
	}
	if err := s.prepareSource(ctx, source); err != nil {
		return nil, err
	}
	rs := runSpec{run: run, start: (*apply.Engine).Resume, input: func(ctx context.Context) (apply.Input, error) {
		return s.resumeInput(ctx, run, opts)
	}}
	res, err := s.execute(ctx, rs, opts)
	if _, isRollback := apply.RollbackOf(source); !isRollback {
		err = r.rollbackAfter(ctx, err, opts)
	}
	return res, err
}

// prepareSource gives the session the objects a run of source applies:
// the composition's with its secrets resolved, or a rollback's revision.
func (s *session) prepareSource(ctx context.Context, source string) error {
	s.source = source
	if n, ok := apply.RollbackOf(source); ok {
		_, err := s.useRevision(n)
		return refuse(err)
	}
	return s.resolveSecrets(ctx)
}

// resumeInput loads the run's plan and checks its untouched steps against
// a fresh plan. A run that ended finished or compensated is refused here,
// before the Lease is taken: there is nothing to resume.
func (s *session) resumeInput(ctx context.Context, run string, opts RunOptions) (apply.Input, error) {
	st, _, err := apply.Inspect(s.r.StateDir(), run)
	if err != nil {
		return apply.Input{}, refuse(err)
	}
	if !apply.Resumable(st) {
		return apply.Input{}, refusef("nothing to resume: run %s ended %s", run, st.Status)
	}
	approved, _, err := planner.Load(s.r.StateDir(), st.Plan)
	if err != nil {
		return apply.Input{}, refuse(err)
	}
	return s.approvedInput(ctx, approved, opts, apply.Untouched(approved, st))
}
