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
// and Resume continues it. It returns the run's id. It refuses (a
// *RefusedError), leaving no request, when the latest run is not running:
// it ended, or it was interrupted (its holder is gone, as Status tells),
// so nothing would read the request and the next Resume would stop at
// once. No cluster is contacted.
func (r *Release) Stop(ctx context.Context, _ StopOptions) (string, error) {
	if err := r.checkOwner(); err != nil {
		return "", err
	}
	run, err := apply.LatestRun(r.StateDir())
	if err != nil {
		return "", refuse(err)
	}
	rs, err := r.runState(run)
	if err != nil {
		return "", refuse(err)
	}
	switch journal.RunStatus(rs.Status) {
	case StatusRunning:
	case StatusInterrupted:
		return "", refusef("run %s was interrupted: %s, so there is nothing to stop; resume continues it", run, gone(rs.Holder))
	default:
		return "", refusef("run %s is not running (it ended %s)", run, rs.Status)
	}
	return run, apply.RequestStop(r.StateDir(), run, lock.CurrentHolder("").String())
}

// gone says that the holder of an interrupted run is gone.
func gone(holder string) string {
	if holder == "" {
		return "its holder is gone"
	}
	return "its holder " + holder + " is gone"
}
