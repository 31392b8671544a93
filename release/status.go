package release

import (
	"context"
	"errors"
	"os"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/localpath"
	"github.com/pynenc/piceli/internal/lock"
	planner "github.com/pynenc/piceli/internal/plan"
)

// HistoryOptions tune History. The zero value is valid.
type HistoryOptions struct {
	// Verify checks every revision's seal and says why in Damaged when
	// one fails (a rollback checks more: the revision against its plan,
	// see Run). It reads every revision file, about 1 ms each on these
	// machines for 50 objects; without it History reads the index alone.
	Verify bool
}

// History lists the release's revisions, oldest first, without their
// objects. It reads the history index, not every revision (rebuilding the
// index once from the revisions when it is missing or behind), unless
// opts.Verify asks to check each. No cluster is contacted, unless the
// release's state is shared: then the state directory is brought up to
// date from the cluster first.
func (r *Release) History(ctx context.Context, opts HistoryOptions) ([]Revision, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	if err := r.pullState(ctx, nil); err != nil {
		return nil, err
	}
	sums, err := history.Summaries(r.StateDir())
	if err != nil {
		return nil, err
	}
	revs := revisionsOf(sums)
	if !opts.Verify {
		return revs, nil
	}
	key, err := planner.ReadKey(r.StateDir())
	if err != nil {
		return nil, err
	}
	for i := range revs {
		revs[i].Damaged = r.sealDamage(key, revs[i].Number)
	}
	return revs, nil
}

// sealDamage says why revision n fails its seal, or "".
func (r *Release) sealDamage(key []byte, n int) string {
	rev, err := history.Load(r.StateDir(), n)
	if err == nil {
		err = rev.Verify(key)
	}
	if err != nil {
		return damaged(n, err).Error()
	}
	return ""
}

// RunReportSchema versions the document Run returns.
const RunReportSchema = "piceli.run/v1"

// RunReport is a run of the release as its journal tells it, beside the
// release's latest revision, as the state directory records them.
type RunReport struct {
	Schema string    `json:"schema"`           // RunReportSchema
	Latest *Revision `json:"latest,omitempty"` // the newest revision, without objects; nil before the first
	Run    *Run      `json:"run,omitempty"`    // the run asked for; nil when the release has none yet
}

// Run is what a run's journal says, read without changing it, and whether
// the process that runs it still does.
type Run struct {
	ID string `json:"id"`
	// Phase is the journal's: running, finished, failed, stopped or
	// compensated; except that a run the journal calls running whose
	// holder is gone (killed, crashed, its machine rebooted) is
	// interrupted. Resume continues an interrupted run as it does a
	// failed one.
	Phase Phase `json:"phase"`
	// Holder is who runs the run (running) or ran it last (interrupted), as
	// "user@host pid N (run ID)"; empty for a run that ended.
	Holder     string `json:"holder,omitempty"`
	Plan       string `json:"plan"`               // the hash of the plan it runs
	WavesReady int    `json:"wavesReady"`         // waves written and ready
	InDoubt    int    `json:"inDoubt"`            // steps whose write may or may not have landed
	TornTail   string `json:"tornTail,omitempty"` // a torn last record Resume would repair
	// Checks are the results of the checks the run's latest session ran,
	// in order (a run whose check failed is failed, with them here).
	Checks []CheckResult `json:"checks,omitempty"`
}

// Run reads the release's latest revision and replays the journal of run
// id (empty: the latest run), read-only. Whether a running run's holder
// still runs it is decided by the state directory's file lock, which every
// run holds to its end and the kernel drops when its holder dies: nobody
// holding it for the run means interrupted. An unknown run is a
// refusal (refusal.Is). No cluster is contacted, and nothing is written, unless
// the release's state is shared: then the state directory is brought up
// to date from the cluster first, and a run no process here holds is
// running while a live holder on another machine holds the release's
// Lease for it.
func (r *Release) Run(ctx context.Context, id string) (*RunReport, error) {
	out := &RunReport{Schema: RunReportSchema}
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	c, err := r.pullShared(ctx)
	if err != nil {
		return nil, err
	}
	if out.Latest, err = r.latest(); err != nil {
		return nil, err
	}
	id, err = r.runID(id)
	if id == "" || err != nil {
		return out, err
	}
	if out.Run, err = r.runState(id); err != nil {
		return nil, err
	}
	return out, r.liveElsewhere(ctx, c, out.Run)
}

// latest is the release's newest revision, checked as a rollback would
// restore it (Damaged says why not); nil before the first.
func (r *Release) latest() (*Revision, error) {
	revs, err := history.Summaries(r.StateDir())
	if err != nil || len(revs) == 0 {
		return nil, err
	}
	rev := revisionOf(revs[len(revs)-1])
	if rev.Damaged, err = r.latestDamage(rev.Number); err != nil {
		return nil, err
	}
	return &rev, nil
}

// runID is id when the release has that run, the latest run when id is
// empty, and "" when it has none yet; an unknown id is a refusal (refusal.Is).
func (r *Release) runID(id string) (string, error) {
	if id != "" {
		if localpath.CheckName(id) != nil {
			return "", refusef("%q is not a run id", id)
		}
		if _, err := os.Stat(apply.JournalPath(r.StateDir(), id)); err != nil {
			return "", refusef("release %s has no run %q in %s", r.Name(), id, r.StateDir())
		}
		return id, nil
	}
	run, err := apply.LatestRun(r.StateDir())
	if errors.Is(err, apply.ErrNoRun) {
		return "", nil
	}
	return run, err
}

// latestDamage checks the latest revision, the one an automatic rollback
// or a compensation would restore, as they check it (checkRevision), and
// says why it may not be restored, or "".
func (r *Release) latestDamage(n int) (string, error) {
	key, err := planner.ReadKey(r.StateDir())
	if err != nil {
		return "", err
	}
	if _, err := trustedRevision(r.StateDir(), key, n); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

// runState replays run's journal and, when it says running, asks the file
// lock whether the run's holder is still there.
func (r *Release) runState(run string) (*Run, error) {
	st, tail, err := apply.Inspect(r.StateDir(), run)
	if err != nil {
		return nil, err
	}
	rs := &Run{ID: run, Phase: Phase(st.Status), Plan: st.Plan, WavesReady: st.WavesReady, InDoubt: len(st.InDoubt()), Checks: checkResults(st.Checks)}
	if tail != nil {
		rs.TornTail = tail.String()
	}
	if st.Status != journal.StatusRunning {
		return rs, nil
	}
	h, held, err := lock.Probe(r.StateDir())
	if err != nil {
		return nil, err
	}
	rs.Phase, rs.Holder = liveness(run, st.Holder, h, held)
	return rs, nil
}

// liveness decides whether a run its journal calls running still runs:
// only while the state directory's file lock is held for that run (h is
// its holder record, journaled the holder the journal names last). A lock
// nobody holds, or one held by another run or by a command such as gc,
// means the run's holder is gone, since it would hold the lock itself.
func liveness(run, journaled string, h lock.Holder, held bool) (Phase, string) {
	if held && h.Run == run {
		return PhaseRunning, h.String()
	}
	return PhaseInterrupted, journaled
}
