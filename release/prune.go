package release

import (
	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

// pruneRecords reads what a plan's prune needs from the state directory:
// the objects of the latest revision, whose kinds and namespaces it lists,
// and the UIDs the release owns (plan.Owned of the latest revision's plan
// and every run's journal). A plan or journal that cannot be read owns
// nothing: prune then keeps, and lists, the objects only it names.
func pruneRecords(stateDir string) ([]history.Object, map[string]bool, error) {
	rev, err := history.Latest(stateDir)
	if err != nil {
		return nil, nil, err
	}
	runs, err := apply.Runs(stateDir)
	if err != nil {
		return nil, nil, err
	}
	var journals [][]journal.Record
	for _, run := range runs {
		if recs, _, err := journal.Read(apply.JournalPath(stateDir, run)); err == nil {
			journals = append(journals, recs)
		}
	}
	var previous []history.Object
	var applied *plan.Plan
	if rev != nil {
		previous = rev.Objects
		applied, _, _ = plan.Load(stateDir, rev.Plan) // nil when unreadable
	}
	return previous, plan.Owned(applied, journals...), nil
}
