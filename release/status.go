package release

import (
	"context"
	"errors"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/lock"
	planner "github.com/pynenc/piceli/internal/plan"
)

// HistoryOptions tune History. The zero value is valid.
type HistoryOptions struct {
	// Verify checks every revision's seal and says why in Damaged when
	// one fails (a rollback checks more: the revision against its plan,
	// see Status). It reads every revision file, about 1 ms each on these
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
	revs, err := history.Summaries(r.StateDir())
	if err != nil || !opts.Verify {
		return revs, err
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

// Status is the release's state as its state directory records it.
type Status struct {
	Latest *Revision `json:"latest,omitempty"` // the newest revision, without objects; nil before the first
	Run    *RunState `json:"run,omitempty"`    // the latest run; nil before the first
}

// RunState is what a run's journal says, read without changing it, and
// whether the process that runs it still does.
type RunState struct {
	ID string `json:"id"`
	// Status is the journal's: running, finished, failed, stopped or
	// compensated; except that a run the journal calls running whose holder
	// is gone (killed, crashed, its machine rebooted) is interrupted. Resume
	// continues an interrupted run as it does a failed one.
	Status string `json:"status"`
	// Holder is who runs the run (running) or ran it last (interrupted), as
	// "user@host pid N (run ID)"; empty for a run that ended.
	Holder     string `json:"holder,omitempty"`
	Plan       string `json:"plan"`
	WavesReady int    `json:"wavesReady"`
	InDoubt    int    `json:"inDoubt"`            // steps whose write may or may not have landed
	TornTail   string `json:"tornTail,omitempty"` // a torn last record Resume would repair
	// Checks are the results of the checks the run's latest session ran,
	// in order (a run whose check failed is failed, with them here).
	Checks []CheckResult `json:"checks,omitempty"`
}

// The statuses a RunState has besides those a run ends with.
const (
	StatusRunning     = journal.StatusRunning            // its holder runs it now
	StatusInterrupted = journal.RunStatus("interrupted") // running in its journal, its holder gone
)

// StatusOptions tune Status. The zero value is valid.
type StatusOptions struct{}

// Status reads the latest revision and replays the latest run's journal,
// read-only. Whether a running run's holder still runs it is decided by the
// state directory's file lock, which every run holds to its end and the
// kernel drops when its holder dies: nobody holding it for the run means
// interrupted. No cluster is contacted, and nothing is written, unless the
// release's state is shared: then the state directory is brought up to
// date from the cluster first, and a run no process here holds is running
// while a live holder on another machine holds the release's Lease for it.
func (r *Release) Status(ctx context.Context, _ StatusOptions) (*Status, error) {
	out := &Status{}
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	c, err := r.pullShared(ctx)
	if err != nil {
		return nil, err
	}
	revs, err := history.Summaries(r.StateDir())
	if err != nil {
		return nil, err
	}
	if len(revs) > 0 {
		out.Latest = &revs[len(revs)-1]
		if out.Latest.Damaged, err = r.latestDamage(out.Latest.Number); err != nil {
			return nil, err
		}
	}
	run, err := apply.LatestRun(r.StateDir())
	if errors.Is(err, apply.ErrNoRun) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if out.Run, err = r.runState(run); err != nil {
		return nil, err
	}
	return out, r.liveElsewhere(ctx, c, out.Run)
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
func (r *Release) runState(run string) (*RunState, error) {
	st, tail, err := apply.Inspect(r.StateDir(), run)
	if err != nil {
		return nil, err
	}
	rs := &RunState{ID: run, Status: string(st.Status), Plan: st.Plan, WavesReady: st.WavesReady, InDoubt: len(st.InDoubt()), Checks: st.Checks}
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
	status, holder := liveness(run, st.Holder, h, held)
	rs.Status, rs.Holder = string(status), holder
	return rs, nil
}

// liveness decides whether a run its journal calls running still runs:
// only while the state directory's file lock is held for that run (h is
// its holder record, journaled the holder the journal names last). A lock
// nobody holds, or one held by another run or by a command such as gc,
// means the run's holder is gone, since it would hold the lock itself.
func liveness(run, journaled string, h lock.Holder, held bool) (journal.RunStatus, string) {
	if held && h.Run == run {
		return StatusRunning, h.String()
	}
	return StatusInterrupted, journaled
}
