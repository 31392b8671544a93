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

// records is what a plan needs from the state directory: the latest
// revision's objects, read at once, and what the release owns and left
// settled, read from the journals and the latest revision's plan when
// ownership is called.
type records struct {
	// previous are the objects of the latest revision, whose kinds and
	// namespaces prune lists (without manifests).
	previous []history.Object
	stateDir string
	rev      *history.Revision // the latest, nil before the first
	runs     []string          // every run the state directory keeps
	known    *plan.Plan
}

// readRecords reads the release's latest revision and lists its runs.
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
	rs := records{stateDir: stateDir, rev: rev, runs: runs, known: known}
	if rev != nil {
		rs.previous = rev.Objects
	}
	return rs, nil
}

// ownership reads what the release's records say it owns (planner.Owned of
// the latest revision's plan and every run's journal) and what the latest
// revision's run left each object as (planner.SettledBy; none unless that
// run's field manager is release's). A plan or journal that cannot be read
// owns nothing and settles nothing: prune then keeps, and lists, the
// objects only it names, and plans dry-run the objects only it left.
func (rs records) ownership(release plan.Release) (map[string]bool, map[object.Ref]planner.Settled) {
	var applied *plan.Plan
	var wg sync.WaitGroup
	wg.Go(func() { applied = rs.applied() })
	// The journals are read while the plan is: each is a file of its own.
	// One that cannot be read stays nil: it owns and settles nothing.
	journals := make([][]journal.Record, len(rs.runs))
	parallel.Each(len(rs.runs), 1, func(i int) {
		journals[i], _, _ = journal.Read(apply.JournalPath(rs.stateDir, rs.runs[i]))
	})
	wg.Wait()
	var last []journal.Record // the latest revision's run
	if rs.rev != nil {
		if i := slices.Index(rs.runs, rs.rev.Run); i >= 0 {
			last = journals[i]
		}
	}
	owned := planner.Owned(applied, journals...)
	if applied == nil || applied.Release != release {
		return owned, nil // settled by another field manager, or by nothing readable
	}
	return owned, planner.SettledBy(applied, last)
}

// applied is the plan the latest revision applied, its steps without
// manifests (planner.LoadSteps), or the known plan when it is that plan;
// nil before the first revision or when its file cannot be read.
func (rs records) applied() *plan.Plan {
	switch {
	case rs.rev == nil:
		return nil
	case rs.known != nil && rs.known.Hash == rs.rev.Plan:
		return rs.known
	}
	p, _, _ := planner.LoadSteps(rs.stateDir, rs.rev.Plan)
	return p
}
