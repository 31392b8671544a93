package release

import (
	"context"
	"fmt"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/secret"
	"github.com/pynenc/piceli/plan"
)

// RollbackPlan is a stored plan that goes back to a revision.
type RollbackPlan struct {
	// To is the revision the plan restores (PlanRollback's 0 resolved).
	To int
	// Plan is the plan; blocked plans are returned but not stored. Pass
	// its approved hash, with To, to Rollback.
	Plan *plan.Plan
}

// PlanRollback plans going back to revision to (0: the one before the
// latest) and stores the plan, as Plan does for the composition. It takes
// that revision's objects from the history and the values of its declared
// secrets from the store versions it used (the composition's current
// secret sources are not read), and plans them against the current
// cluster. A damaged revision is a refusal (refusal.Is). Nothing is written to
// the cluster, except a shared release's state, as Plan writes it.
func (r *Release) PlanRollback(ctx context.Context, to int, opts PlanOptions) (*RollbackPlan, error) {
	if err := r.checkWriter(); err != nil {
		return nil, err
	}
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	rev, err := s.useRevision(to)
	if err != nil {
		return nil, refuse(err)
	}
	if err := s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, reclaim: opts.Reclaim, parallel: opts.Parallel}); err != nil {
		return nil, err
	}
	if err := s.store(); err != nil {
		return nil, err
	}
	if err := s.share(ctx); err != nil {
		return nil, err
	}
	return &RollbackPlan{To: rev, Plan: s.plan}, nil
}

// Rollback runs the stored rollback plan whose hash is approve, made by
// PlanRollback for revision to, as Apply runs a plan: the revision's
// objects are planned again under the release's file lock, stale checks
// and locks included. The run becomes a new revision whose source is
// "rollback to N". An empty approve is a refusal (refusal.Is).
func (r *Release) Rollback(ctx context.Context, to int, approve string, opts RunOptions) (*Result, error) {
	return r.applyApproved(ctx, approve, opts, func(s *session, ctx context.Context) error {
		rev, err := s.useRevision(to)
		if err != nil {
			return refuse(err)
		}
		s.source = apply.RollbackSource(rev)
		return nil
	})
}

// useRevision replaces the session's objects with those of revision to (0:
// the one before the latest), Secret values from the store versions it
// used, and returns its number. A damaged revision is refused.
func (s *session) useRevision(to int) (int, error) {
	rev, err := rollbackTarget(s.r.StateDir(), s.key, to)
	if err != nil {
		return 0, err
	}
	objs, versions, err := revisionObjects(rev, s.objects, s.key, secret.View(s.r.StateDir()))
	if err != nil {
		return 0, err
	}
	s.objects, s.secrets, s.components = objs, versions, nil
	return rev.Number, nil
}

// rollbackTarget returns the revision a rollback goes back to: to, or when
// to is 0 the one before the latest; a damaged one (checkRevision) is
// refused.
func rollbackTarget(stateDir string, key []byte, to int) (*history.Revision, error) {
	if to > 0 {
		return trustedRevision(stateDir, key, to)
	}
	revs, err := history.Summaries(stateDir)
	if err != nil {
		return nil, err
	}
	if len(revs) < 2 {
		return nil, fmt.Errorf("rollback needs an earlier revision: the release has %d", len(revs))
	}
	return trustedRevision(stateDir, key, revs[len(revs)-2].Number)
}
