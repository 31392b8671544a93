package retention

import "github.com/pynenc/piceli/internal/plan"

// sweepPlans removes the stored plans that are neither among the newest
// nor needed, and tallies them in t.
func sweepPlans(stateDir string, newest int, needed map[string]bool, t *Tally) error {
	stored, err := plan.List(stateDir)
	if err != nil {
		return err
	}
	for i, p := range stored {
		if i >= len(stored)-newest || needed[p.Hash] {
			t.keep(p.Hash)
			continue
		}
		if err := plan.Remove(stateDir, p.Hash); err != nil {
			return err
		}
		t.remove(p.Hash)
	}
	return nil
}
