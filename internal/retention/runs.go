package retention

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pynenc/piceli/internal/apply"
)

// run is what retention knows of one run from its journal.
type run struct {
	id        string
	plan      string // the plan the journal names; empty when unread
	unread    error  // why the journal cannot be read or replayed
	resumable bool
}

// sweepRuns removes the runs the rule does not keep, tallies them in rep
// (with a warning for each unreadable run kept), and returns the plans of
// the runs kept.
func sweepRuns(stateDir string, newest int, rep *Report) ([]string, error) {
	finished, err := apply.FinishRemovals(stateDir)
	for _, id := range finished {
		rep.Runs.remove(id)
	}
	if err != nil {
		return nil, err
	}
	runs, latest, err := readRuns(stateDir)
	if err != nil {
		return nil, err
	}
	keep := keptRuns(runs, latest, newest)
	var plans []string
	for _, r := range runs {
		if keep[r.id] {
			plans = append(plans, kept(r, rep)...)
			continue
		}
		if err := apply.RemoveRun(stateDir, r.id); err != nil {
			return nil, err
		}
		rep.Runs.remove(r.id)
	}
	slices.Sort(rep.Runs.Removed) // what an interrupted Apply left was tallied first
	return plans, nil
}

// kept tallies r as kept, warns when its journal cannot be read, and
// returns the plan it applies, if its journal says.
func kept(r run, rep *Report) []string {
	rep.Runs.keep(r.id)
	if r.unread != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("run %s kept: its journal cannot be read: %v", r.id, r.unread))
	}
	if r.plan == "" {
		return nil
	}
	return []string{r.plan}
}

// readRuns replays every run's journal, oldest run first, and reads which
// run is the latest ("" when none is).
func readRuns(stateDir string) ([]run, string, error) {
	latest, err := apply.LatestRun(stateDir)
	if errors.Is(err, apply.ErrNoRun) {
		latest, err = "", nil
	}
	if err != nil {
		return nil, "", err
	}
	ids, err := apply.Runs(stateDir)
	if err != nil {
		return nil, "", err
	}
	runs := make([]run, len(ids))
	for i, id := range ids {
		st, _, err := apply.Inspect(stateDir, id)
		runs[i] = run{id: id, plan: st.Plan, unread: err, resumable: err == nil && apply.Resumable(st)}
	}
	return runs, latest, nil
}

// keptRuns says of each of runs (oldest first) whether it is kept: the
// newest ones, the latest, the resumable and the unreadable are.
func keptRuns(runs []run, latest string, newest int) map[string]bool {
	keep := map[string]bool{}
	for i, r := range runs {
		keep[r.id] = i >= len(runs)-newest || r.id == latest || r.resumable || r.unread != nil
	}
	return keep
}
