package release

import (
	"slices"
	"sync"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/parallel"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// records is what a plan needs from the state directory.
type records struct {
	// previous are the objects of the latest revision, whose kinds and
	// namespaces prune lists (without manifests).
	previous []history.Object
	// owned are the UIDs the release owns: planner.Owned of the latest
	// revision's plan and every run's journal.
	owned map[string]bool
	// settled is what the latest revision's run left each object as
	// (planner.SettledBy), and applied that revision's plan (its steps,
	// without manifests: planner.LoadSteps).
	settled map[object.Ref]planner.Settled
	applied *plan.Plan
}

// readRecords reads the release's records. A plan or journal that cannot
// be read owns nothing and settles nothing: prune then keeps, and lists,
// the objects only it names, and plans dry-run the objects only it left.
// known is a plan already loaded with its seal checked (an approval
// check's approved plan), or nil: when the latest revision applied that
// same plan, as it does when a release is applied again unchanged, it
// stands in for reading that plan's file a second time.
func readRecords(stateDir string, known *plan.Plan) (records, error) {
	rev, err := history.LatestWithoutManifests(stateDir)
	if err != nil {
		return records{}, err
	}
	runs, err := apply.Runs(stateDir)
	if err != nil {
		return records{}, err
	}
	var rs records
	var wg sync.WaitGroup
	if rev != nil {
		rs.previous = rev.Objects
		rs.applied = known
		if known == nil || known.Hash != rev.Plan {
			wg.Go(func() { rs.applied, _, _ = planner.LoadSteps(stateDir, rev.Plan) }) // nil when unreadable; no manifests
		}
	}
	// The journals are read while the plan is: each is a file of its own.
	// One that cannot be read stays nil: it owns and settles nothing.
	journals := make([][]journal.Record, len(runs))
	parallel.Each(len(runs), 1, func(i int) {
		journals[i], _, _ = journal.Read(apply.JournalPath(stateDir, runs[i]))
	})
	wg.Wait()
	var last []journal.Record // the latest revision's run
	if rev != nil {
		if i := slices.Index(runs, rev.Run); i >= 0 {
			last = journals[i]
		}
	}
	rs.owned = planner.Owned(rs.applied, journals...)
	rs.settled = planner.SettledBy(rs.applied, last)
	return rs, nil
}
