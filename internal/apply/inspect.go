package apply

import (
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// Inspect reads a run's journal without changing it and replays it.
func Inspect(stateDir, run string) (journal.State, *journal.Tail, error) {
	recs, tail, err := journal.Read(JournalPath(stateDir, run))
	if err != nil {
		return journal.State{}, nil, err
	}
	st, err := journal.Replay(recs)
	return st, tail, err
}

// Resumable reports whether resume could continue a run in state st: its
// journal does not end finished or compensated. A stopped or failed run is
// resumable, and so is a running one (live, or interrupted by a crash).
func Resumable(st journal.State) bool {
	return st.Status != journal.StatusFinished && st.Status != journal.StatusCompensated
}

// Untouched returns the steps of p that a run has not written or tried to
// write: the ones an approval check before resuming must compare.
func Untouched(p *plan.Plan, st journal.State) map[object.Ref]bool {
	out := map[object.Ref]bool{}
	for i, s := range p.Steps {
		ss, seen := st.Steps[i]
		if !seen || ss.Status == journal.StepPending {
			out[s.Ref] = true
		}
	}
	return out
}
