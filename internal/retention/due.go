package retention

import (
	"fmt"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/plan"
)

// Due reports whether Apply with rule could remove a run or a stored plan:
// the state directory holds more runs or more plans than rule keeps of the
// newest. When it is not due, Apply would remove neither, whatever the
// journals say, so a caller that wants only the removals (the pass after
// each finished run) can skip replaying every journal and prune only the
// secrets (PruneSecrets). Due reads directory listings, never a journal.
func Due(stateDir string, rule Rule) (bool, error) {
	rule = rule.withDefaults()
	runs, err := apply.Runs(stateDir)
	if err != nil {
		return false, fmt.Errorf("apply retention: %w", err)
	}
	if len(runs) > rule.Runs {
		return true, nil
	}
	plans, err := plan.List(stateDir)
	if err != nil {
		return false, fmt.Errorf("apply retention: %w", err)
	}
	return len(plans) > rule.Plans, nil
}
