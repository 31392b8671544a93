package release

import (
	"context"
	"errors"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
)

// StopOptions tune Stop. The zero value is valid.
type StopOptions struct{}

// StopRequest is what Stop asked.
type StopRequest struct {
	Run    string `json:"run"`    // the run asked to stop
	Holder string `json:"holder"` // who runs it: "user@host pid N (run ID)"
	// Through is where the request was left: "state directory DIR" for a
	// run on this machine, "lease NAMESPACE/NAME" for one elsewhere.
	Through string `json:"through"`
}

// Stop asks the release's running run, in this process, another one or,
// for a release whose state is shared, on another machine, to stop after
// its in-flight writes settle; the run ends "stopped" in its journal and
// Resume continues it. A run on this machine finds the request in the
// state directory; one elsewhere finds it on the release's Lease, which it
// reads at its next wave or within seconds of a readiness wait. It refuses
// (refusal.Is), leaving no request, when the latest run is not
// running: it ended, or it was interrupted (its holder is gone, as Run
// tells), so nothing would read the request and the next Resume would
// stop at once. Only a shared release contacts the cluster: it pulls the
// state first and reads the Lease.
func (r *Release) Stop(ctx context.Context, _ StopOptions) (*StopRequest, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	c, err := r.pullShared(ctx)
	if err != nil {
		return nil, err
	}
	run, err := apply.LatestRun(r.StateDir())
	if err != nil {
		return nil, refuse(err)
	}
	rs, err := r.runState(run)
	if err != nil {
		return nil, refuse(err)
	}
	if rs.Phase == PhaseInterrupted && c != nil {
		return r.stopElsewhere(ctx, c, rs)
	}
	switch rs.Phase {
	case PhaseRunning:
	case PhaseInterrupted:
		return nil, refusef("run %s was interrupted: %s, so there is nothing to stop; resume continues it", run, gone(rs.Holder))
	default:
		return nil, refusef("run %s is not running (it ended %s)", run, rs.Phase)
	}
	req := &StopRequest{Run: run, Holder: rs.Holder, Through: "state directory " + r.StateDir()}
	return req, apply.RequestStop(r.StateDir(), run, lock.CurrentHolder("").String())
}

// stopElsewhere asks the run rs, which no process of this machine runs,
// to stop through the release's Lease, if a live holder holds it for rs.
func (r *Release) stopElsewhere(ctx context.Context, c *kube.Client, rs *Run) (*StopRequest, error) {
	ns := r.spec.Target.Namespace
	h, err := lock.RequestStop(ctx, c.Clientset, ns, r.Name(), rs.ID, lock.CurrentHolder("").String())
	if errors.Is(err, lock.ErrNotHeldForRun) {
		return nil, refusef("run %s was interrupted: %s, and no live holder holds the release's lease for it, so there is nothing to stop; resume continues it", rs.ID, gone(rs.Holder))
	}
	if err != nil {
		return nil, classify(err)
	}
	return &StopRequest{Run: rs.ID, Holder: h.String(), Through: "lease " + ns + "/" + lock.LeaseName(r.Name())}, nil
}

// liveElsewhere corrects rs for a shared release (c not nil): a run this
// machine calls interrupted, since no process here holds it, still runs
// while a live holder holds the release's Lease for it on another machine.
func (r *Release) liveElsewhere(ctx context.Context, c *kube.Client, rs *Run) error {
	if c == nil || rs == nil || rs.Phase != PhaseInterrupted {
		return nil
	}
	h, ok, err := lock.LeaseHolder(ctx, c.Clientset, r.spec.Target.Namespace, r.Name())
	if err != nil {
		return classify(err)
	}
	if ok && h.Run == rs.ID {
		rs.Phase, rs.Holder = PhaseRunning, h.String()
	}
	return nil
}

// gone says that the holder of an interrupted run is gone.
func gone(holder string) string {
	if holder == "" {
		return "its holder is gone"
	}
	return "its holder " + holder + " is gone"
}
