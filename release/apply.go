package release

import (
	"context"
	"errors"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/plan"
)

// Apply runs exactly the stored plan whose hash (or its first 12 to 64
// lower-case hex digits, CheckApproval) is approve. Under the release's
// file lock it renders the composition again and reads the cluster with
// one LIST per kind and
// namespace (dry-running only objects written since the plan saw them),
// and refuses with a *StaleError, before any write, when the composition
// now renders differently, the target differs or the cluster changed in a
// field the plan touches; then it takes the release's Lease and runs the plan
// wave by wave with readiness in between, journaling every write. A run
// that finishes becomes the release's next revision, and the state
// directory's retention rule is applied.
//
// An empty approve is a refusal (refusal.Is): planning is Plan's, and a plan is
// applied only once someone approved its hash. A run that starts and does
// not finish returns a *RunFailedError with its Result;
// under [release] on_failure = "rollback" a failed one (not a stopped one)
// is then rolled back to the latest revision, and the error's Rollback
// says how that went.
//
// After the last wave the spec's checks run, in order (unless
// opts.SkipChecks), each journaled; one that fails fails the run, whose
// error then wraps a *ChecksFailedError. The revision keeps their results.
func (r *Release) Apply(ctx context.Context, approve string, opts RunOptions) (*Result, error) {
	res, err := r.applyApproved(ctx, approve, opts, (*session).resolveSecrets)
	return res, r.rollbackAfter(ctx, err, opts)
}

// applyApproved runs the approved plan as a new run; prepare gives the
// session its objects (the composition's secrets resolved, or a revision's)
// and its source.
func (r *Release) applyApproved(ctx context.Context, hash string, opts RunOptions, prepare func(*session, context.Context) error) (*Result, error) {
	if hash == "" {
		return nil, refusef("no approved plan: apply runs a stored plan by its hash; plan first, and approve that plan's hash")
	}
	if err := CheckApproval(hash); err != nil {
		return nil, err
	}
	if err := r.checkWriter(); err != nil {
		return nil, err
	}
	pre, s, err := r.precheckAndOpen(ctx, hash)
	if err != nil {
		return nil, err
	}
	if err := prepare(s, ctx); err != nil {
		return nil, err
	}
	approved, err := r.loadApproved(hash, pre)
	if err != nil {
		return nil, err
	}
	if p := promotionOf(approved); p != nil && s.r.promotion == nil {
		// A promoted plan that arrived with the shared state: render
		// again with its images.
		if s, err = r.forPromotion(p).open(ctx); err != nil {
			return nil, err
		}
		if err := prepare(s, ctx); err != nil {
			return nil, err
		}
	}
	rs := runSpec{run: apply.NewRunID(), start: (*apply.Engine).Apply, input: func(ctx context.Context) (apply.Input, error) {
		return s.approvedInput(ctx, approved, opts, nil)
	}}
	return s.execute(ctx, rs, opts)
}

// precheckAndOpen loads the approved plan and checks its environment
// (precheckEnvironment) while the composition renders: a large release
// spends tens of milliseconds on each. Nothing reaches the cluster until
// the check has passed, and its refusal comes before any error of the
// render (for a composition of files only, which may not need a render,
// the check comes first: precheckThenOpen). pre is the plan loaded, or nil when the state directory cannot
// give it yet. A promoted plan renders with its images: that first render
// stops before the cluster, and the composition is opened again with them.
func (r *Release) precheckAndOpen(ctx context.Context, hash string) (pre *plan.Plan, s *session, err error) {
	if r.reusesRender() {
		return r.precheckThenOpen(ctx, hash)
	}
	done := make(chan struct{})
	var preErr error
	go func() {
		defer close(done)
		pre, preErr = r.precheckEnvironment(hash)
	}()
	s, err = r.openAfter(ctx, func() error {
		<-done
		if preErr == nil && promotionOf(pre) != nil {
			return errPromoted
		}
		return preErr
	})
	<-done
	if preErr != nil {
		return nil, nil, preErr
	}
	if p := promotionOf(pre); p != nil {
		s, err = r.forPromotion(p).open(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	return pre, s, nil
}

// errPromoted stops a render that precheckAndOpen starts again with the
// approved plan's promoted images.
var errPromoted = errors.New("the approved plan is a promotion: render with its images")
