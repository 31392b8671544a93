package release

import (
	"context"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/lock"
)

// StopOptions tune Stop. The zero value is valid.
type StopOptions struct{}

// Stop asks the release's running run, in this process or another, to stop
// after its in-flight writes settle; the run ends "stopped" in its journal
// and Resume continues it. It returns the run's id, and refuses (a
// *RefusedError) when the latest run is not running. No cluster is
// contacted.
func (r *Release) Stop(ctx context.Context, _ StopOptions) (string, error) {
	run, err := apply.LatestRun(r.StateDir())
	if err != nil {
		return "", refuse(err)
	}
	st, _, err := apply.Inspect(r.StateDir(), run)
	if err != nil {
		return "", refuse(err)
	}
	if st.Status != journal.StatusRunning {
		return "", refusef("run %s is not running (it ended %s)", run, st.Status)
	}
	return run, apply.RequestStop(r.StateDir(), run, lock.CurrentHolder("").String())
}
