package release

import (
	"context"

	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// PlanOptions tune Plan and Diff. The zero value is valid.
type PlanOptions struct {
	// AllowReplace plans delete-and-create for immutable field changes
	// instead of refusing them.
	AllowReplace bool
	// Reclaim plans back the fields this release declares that another
	// field manager changed by an update (kubectl edit or scale, a PATCH,
	// a PUT): such a step is an update that takes the fields back
	// (plan.Step.Reclaim) instead of a conflict that blocks the plan. A
	// field another manager owns by server-side apply stays a conflict.
	// Apply the plan with RunOptions.Reclaim.
	Reclaim bool
	// Parallel bounds the dry-runs (and LISTs) in flight; 0 means 16. It
	// is the knob that spares a small or shared control plane.
	Parallel int
	// Known is the hash of a plan the caller had Plan store before. When
	// planning finds that very plan again (nothing in the composition or
	// the cluster changed since), Plan returns the stored plan and stores
	// and shares nothing: a caller that plans on every pass while a plan
	// waits for its approval writes nothing while nothing changes. Diff
	// ignores it.
	Known string
}

// Plan renders the composition, resolves its declared secrets, discovers
// and dry-runs every object against the target cluster (but those the
// release's last run left untouched, at the very resourceVersion it wrote
// with the same manifest: they are no-ops) and stores the plan
// under the state directory, with the new secret versions it uses. A plan
// with blocked steps (conflicts, refused replaces) is returned but not
// stored: check Plan.Blocked. Nothing is written to the cluster, except
// that a release whose state is shared ([release] state = "cluster")
// pushes its state there, under the release's Lease (see State.Shared),
// signed with this machine's key: a machine whose key [release]
// state_signers does not list is refused before anything is read.
func (r *Release) Plan(ctx context.Context, opts PlanOptions) (*plan.Plan, error) {
	if err := r.checkWriter(); err != nil {
		return nil, err
	}
	s, err := r.planned(ctx, opts)
	if err != nil {
		return nil, err
	}
	if known := s.known(opts.Known); known != nil {
		return known, nil
	}
	s.plan.Inputs = s.inputs()
	if err := s.store(); err != nil {
		return s.plan, err
	}
	return s.plan, s.share(ctx)
}

// known returns the stored plan whose hash is hash when the plan just
// made is that plan, and nil otherwise (also when the state directory no
// longer holds it, or holds it under another digest key: it is stored
// again).
func (s *session) known(hash string) *plan.Plan {
	if hash == "" || len(s.plan.Blocked()) > 0 {
		return nil
	}
	if h, err := planner.ComputeHash(s.plan); err != nil || h != hash {
		return nil
	}
	stored, _, err := planner.Load(s.r.StateDir(), hash)
	if err != nil {
		return nil
	}
	return stored
}

// Diff is Plan without storing anything: no plan, no digest key, no secret
// version. Use Plan.Changed to detect drift.
func (r *Release) Diff(ctx context.Context, opts PlanOptions) (*plan.Plan, error) {
	s, err := r.planned(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s.plan, nil
}

// planned opens a session, resolves its secrets and plans.
func (r *Release) planned(ctx context.Context, opts PlanOptions) (*session, error) {
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.resolveSecrets(ctx); err != nil {
		return nil, err
	}
	return s, s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, reclaim: opts.Reclaim, parallel: opts.Parallel})
}
