package release

import (
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// PlanHash is the hash Plan would store p under: what a person approves.
// A plan from Diff is stored nowhere and carries no hash; PlanHash says
// which stored plan it equals, so a reader that only diffs (the
// controller, for a revision it holds back) can show the hash an approval
// of it must name. It is that plan's only when the release's digest key is
// already stored (Plan stores one on its first call).
func PlanHash(p *plan.Plan) (string, error) {
	return planner.ComputeHash(p)
}
