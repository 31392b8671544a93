package retention

import "github.com/pynenc/piceli/internal/apply"

// AfterRun is the pass after each finished run: Apply of the default rule
// when it is due (Due), and otherwise, since no run or plan can go, only
// what Apply would do besides: finish the run removals a crash
// interrupted and prune secret versions. It replays no journal then. The
// caller holds the release's lock.
func AfterRun(stateDir string) error {
	due, err := Due(stateDir, Rule{})
	switch {
	case err != nil:
		return err
	case due:
		_, err = Apply(stateDir, Rule{})
		return err
	}
	if _, err := apply.FinishRemovals(stateDir); err != nil {
		return err
	}
	_, err = PruneSecrets(stateDir, 0)
	return err
}
