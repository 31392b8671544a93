package release

import (
	"context"
	"fmt"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/secret"
)

// Rollback goes back to revision to (0: the one before the latest). It
// takes that revision's objects from the history and the values of its
// declared secrets from the store versions it used (the composition's
// current secret sources are not read), and plans them against the current
// cluster.
//
// With an empty approve it stores that plan and returns an
// *ApprovalRequiredError holding it (and the revision); nothing is applied.
// With the approved hash it runs the plan as Apply does, stale checks and
// locks included; the run becomes a new revision whose source is
// "rollback to N".
func (r *Release) Rollback(ctx context.Context, to int, approve string, opts RunOptions) (*Result, error) {
	var rev int
	prepare := func(s *session, _ context.Context) (err error) {
		rev, err = s.useRevision(to)
		return refuse(err)
	}
	if approve != "" {
		return r.applyApproved(ctx, approve, opts, func(s *session, ctx context.Context) error {
			if err := prepare(s, ctx); err != nil {
				return err
			}
			s.source = apply.RollbackSource(rev)
			return nil
		})
	}
	if err := r.checkWriter(); err != nil {
		return nil, err
	}
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	if err := prepare(s, ctx); err != nil {
		return nil, err
	}
	if err := s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, parallel: opts.Parallel}); err != nil {
		return nil, err
	}
	if err := s.store(); err != nil {
		return nil, err
	}
	if err := s.share(ctx); err != nil {
		return nil, err
	}
	return nil, &ApprovalRequiredError{Plan: s.plan, Rollback: rev}
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
