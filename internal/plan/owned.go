package plan

import "github.com/pynenc/piceli/internal/journal"

// Owned returns the UIDs a release's records say it owns, the Input.Owned
// of its next plan: every object a run of it wrote (the UID of each
// applied outcome or settlement in the runs' journals) and every existing
// object an applied plan of it declared (applied may be nil). Revisions
// record no UIDs, so the latest revision's plan stands in for runs whose
// journals retention removed. An object created by such a run and declared
// by no later plan is not owned: prune keeps it, and says so.
func Owned(applied *Plan, journals ...[]journal.Record) map[string]bool {
	out := map[string]bool{}
	if applied != nil {
		for _, s := range applied.Steps {
			if s.Action != Delete && s.Observed.UID != "" {
				out[s.Observed.UID] = true
			}
		}
	}
	for _, recs := range journals {
		for _, r := range recs {
			if (r.Type == journal.Outcome || r.Type == journal.Settled) && r.Result == journal.ResultApplied && r.UID != "" {
				out[r.UID] = true
			}
		}
	}
	return out
}
