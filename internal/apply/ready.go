package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
	"github.com/pynenc/piceli/internal/readiness"
)

// ready waits until every object of a wave is ready, or the wave's timeout
// passes, or a stop is requested. Deletes are not waited for, nor steps the
// plan says not to wait for (Step.NoWait), each of which gets a
// wait-skipped event. CRDs that became Established make the client forget
// its discovery cache, so later waves resolve the new kinds.
func (r *runner) ready(ctx context.Context, n int, nodes []int) error {
	if ctx.Err() != nil {
		// a run abandoned mid-wave (a second Ctrl-C) never calls a wave
		// ready, even one with nothing to read
		return context.Cause(ctx)
	}
	r.skipWaits(n, nodes)
	targets, refs, crds := r.readyTargets(nodes)
	if len(targets) == 0 {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := r.watchStop(wctx, cancel)
	_, err := readiness.Wait(wctx, r.e.Client.Dynamic, targets, readiness.WaitOptions{
		Timeout:     r.opts.ReadyTimeout,
		OnPoll:      func(p []readiness.Target) { r.e.emit(waiting(n, len(targets), p, refs)) },
		OnDiagnosis: func(o readiness.Object) { r.diagnosed(n, refs[o.Target], o.Diagnosis) },
	})
	if stopped() {
		return ErrStopped
	}
	if err == nil && crds {
		r.e.Client.Mapper.Reset()
	}
	return withSkipHints(err)
}

// diagnosed tells of a problem found while wave n waits on ref, one event
// per line of its diagnosis.
func (r *runner) diagnosed(n int, ref object.Ref, lines []string) {
	for _, line := range lines {
		r.e.emit(progress.Event{Kind: progress.Diagnosed, Wave: n, Ref: ref.String(), Message: line})
	}
}

// skipHint tells how to apply an object without waiting for it.
var skipHint = fmt.Sprintf(`to apply without waiting for it, annotate it %s: "false" (app.NoWait() in a Go composition), or set wait = "none" under [release] in release.toml`, object.WaitAnnotation)

// withSkipHints adds skipHint to the diagnosis of each object a timed-out
// wait names whose readiness hangs on a part of the cluster that may be
// missing (a load-balancer controller, a volume provisioner) rather than
// on the release: a Service (only a LoadBalancer one is ever not ready)
// and a PersistentVolumeClaim.
func withSkipHints(err error) error {
	var nr *readiness.NotReadyError
	if !errors.As(err, &nr) || !errors.Is(err, readiness.ErrTimeout) {
		return err
	}
	for i, o := range nr.Objects {
		if o.Ref.Group == "" && (o.Ref.Kind == "Service" || o.Ref.Kind == "PersistentVolumeClaim") {
			nr.Objects[i].Diagnosis = append(o.Diagnosis, skipHint)
		}
	}
	return err
}

// readyTargets lists what a wave waits for, with the object reference of
// each target. While the run has written nothing, objects the approval
// check found ready (Input.Current) are not waited for again; nor is an
// object whose write answered it ready for good (written.Ready).
func (r *runner) readyTargets(nodes []int) ([]readiness.Target, map[readiness.Target]object.Ref, bool) {
	var out []readiness.Target
	refs := map[readiness.Target]object.Ref{}
	crds := false
	for _, i := range nodes {
		s := r.in.Plan.Steps[i]
		if s.Action == plan.Delete || s.NoWait != "" || (!r.wrote && r.in.Current[s.Ref]) || r.readyOnWrite(i) {
			continue
		}
		gv, _ := schema.ParseGroupVersion(s.APIVersion)
		t := readiness.Target{GVR: gv.WithResource(s.Resource), Kind: s.Ref.Kind, Namespace: s.Ref.Namespace, Name: s.Ref.Name}
		out, refs[t] = append(out, t), s.Ref
		crds = crds || s.Ref.Kind == "CustomResourceDefinition"
	}
	return out, refs, crds
}

// readyOnWrite reports whether step i's write this session answered it
// ready for good.
func (r *runner) readyOnWrite(i int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written[i].Ready
}

// skipWaits says, for each step of wave n that the plan does not wait for,
// that its readiness is not awaited and why; the step itself was written
// (or left unchanged) like any other.
func (r *runner) skipWaits(n int, nodes []int) {
	for _, i := range nodes {
		s := r.in.Plan.Steps[i]
		if s.NoWait != "" && s.Action != plan.Delete {
			r.e.emit(progress.Event{Kind: progress.WaitSkipped, Wave: n, Ref: s.Ref.String(), Action: string(s.Action), Message: s.NoWait.Explain()})
		}
	}
}

// watchStop cancels a wait when a stop is requested; the returned function
// reports whether that happened.
func (r *runner) watchStop(ctx context.Context, cancel context.CancelFunc) func() bool {
	hit := make(chan struct{})
	go func() {
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if r.stopRequested(ctx) {
					close(hit)
					cancel()
					return
				}
			}
		}
	}()
	return func() bool {
		select {
		case <-hit:
			return true
		default:
			return false
		}
	}
}

// waiting is the event of one readiness poll: how many of the wave's
// targets are pending, the first few names, and the kind they are counted
// in: the wave's one kind ("62 of 100 Deployments"), or else "objects" with
// each name qualified by its kind.
func waiting(wave, total int, pending []readiness.Target, refs map[readiness.Target]object.Ref) progress.Event {
	ev := progress.Event{Kind: progress.Waiting, Wave: wave, Pending: len(pending), Total: total, What: "objects"}
	kind, one := soleKind(refs)
	if one {
		ev.What = plural(kind, total)
	}
	for _, t := range pending[:min(len(pending), progress.MaxNames)] {
		name := refs[t].Name
		if !one {
			name = refs[t].Kind + " " + name
		}
		ev.Names = append(ev.Names, name)
	}
	return ev
}

// soleKind returns the kind every object of refs has, if they share one.
func soleKind(refs map[readiness.Target]object.Ref) (string, bool) {
	kind := ""
	for _, ref := range refs {
		if kind != "" && ref.Kind != kind {
			return "", false
		}
		kind = ref.Kind
	}
	return kind, kind != ""
}

// plural names n objects of kind: "Deployment", "Deployments", "Ingresses".
func plural(kind string, n int) string {
	switch {
	case n == 1:
		return kind
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"):
		return kind + "es"
	case strings.HasSuffix(kind, "y"):
		return kind[:len(kind)-1] + "ies"
	}
	return kind + "s"
}
