package release

import (
	"context"
	"errors"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
)

// HistoryOptions tune History. The zero value is valid.
type HistoryOptions struct{}

// History lists the release's revisions, oldest first, without their
// objects. It reads the history index, not every revision (rebuilding the
// index once from the revisions when it is missing or behind). No cluster
// is contacted.
func (r *Release) History(ctx context.Context, _ HistoryOptions) ([]Revision, error) {
	return history.Summaries(r.StateDir())
}

// Status is the release's state as its state directory records it.
type Status struct {
	Latest *Revision `json:"latest,omitempty"` // the newest revision, without objects; nil before the first
	Run    *RunState `json:"run,omitempty"`    // the latest run; nil before the first
}

// RunState is what a run's journal says, read without changing it.
type RunState struct {
	ID         string `json:"id"`
	Status     string `json:"status"` // running, finished, failed, stopped, compensated
	Plan       string `json:"plan"`
	WavesReady int    `json:"wavesReady"`
	InDoubt    int    `json:"inDoubt"`            // steps whose write may or may not have landed
	TornTail   string `json:"tornTail,omitempty"` // a torn last record Resume would repair
}

// StatusOptions tune Status. The zero value is valid.
type StatusOptions struct{}

// Status reads the latest revision and replays the latest run's journal,
// read-only. No cluster is contacted.
func (r *Release) Status(ctx context.Context, _ StatusOptions) (*Status, error) {
	out := &Status{}
	revs, err := r.History(ctx, HistoryOptions{})
	if err != nil {
		return nil, err
	}
	if len(revs) > 0 {
		out.Latest = &revs[len(revs)-1]
	}
	run, err := apply.LatestRun(r.StateDir())
	if errors.Is(err, apply.ErrNoRun) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	st, tail, err := apply.Inspect(r.StateDir(), run)
	if err != nil {
		return nil, err
	}
	out.Run = runState(run, st, tail)
	return out, nil
}

func runState(run string, st journal.State, tail *journal.Tail) *RunState {
	rs := &RunState{ID: run, Status: string(st.Status), Plan: st.Plan, WavesReady: st.WavesReady, InDoubt: len(st.InDoubt())}
	if tail != nil {
		rs.TornTail = tail.String()
	}
	return rs
}
