package release

import (
	"github.com/pynenc/piceli/internal/apply"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// forPlan is r as it renders for the stored plan hash: for a promoted
// plan (Environment.Promoted, a plan of Promote), r with the promoted
// [images], so that applying it renders what was planned and approved;
// for any other plan, or one the state directory cannot give yet, r
// itself (loadApproved refuses a plan it cannot load).
func (r *Release) forPlan(hash string) *Release {
	p, _, err := planner.Load(r.StateDir(), hash)
	if err != nil {
		return r
	}
	return r.forPromotion(promotionOf(p))
}

// forRun is forPlan for the plan of the release's latest run: what Resume
// continues.
func (r *Release) forRun() *Release {
	run, err := apply.LatestRun(r.StateDir())
	if err != nil {
		return r
	}
	st, _, err := apply.Inspect(r.StateDir(), run)
	if err != nil {
		return r
	}
	return r.forPlan(st.Plan)
}

// forPromotion is r rendering the promoted images of p; r itself when p
// is nil.
func (r *Release) forPromotion(p *plan.Promotion) *Release {
	if p == nil {
		return r
	}
	c := *r
	c.promotion = p
	return &c
}

// promotionOf is the promotion a plan records, or nil.
func promotionOf(p *plan.Plan) *plan.Promotion {
	if p == nil || p.Environment == nil {
		return nil
	}
	return p.Environment.Promoted
}
