package apply

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/readiness"
)

// ready waits until every object of a wave (deletes aside) is ready, or
// the wave's timeout passes, or a stop is requested. CRDs that became
// Established make the client forget its discovery cache, so later waves
// resolve the new kinds.
func (r *runner) ready(ctx context.Context, n int, nodes []int) error {
	targets, crds := r.readyTargets(nodes)
	if len(targets) == 0 {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := r.watchStop(wctx, cancel)
	_, err := readiness.Wait(wctx, r.e.Client.Dynamic, targets, readiness.WaitOptions{
		Timeout: r.opts.ReadyTimeout,
		OnPoll:  func(p []readiness.Target) { r.e.progress().Waiting(n, names(p)) },
	})
	if stopped() {
		return ErrStopped
	}
	if err == nil && crds {
		r.e.Client.Mapper.Reset()
	}
	return err
}

func (r *runner) readyTargets(nodes []int) ([]readiness.Target, bool) {
	var out []readiness.Target
	crds := false
	for _, i := range nodes {
		s := r.in.Plan.Steps[i]
		if s.Action == plan.Delete {
			continue
		}
		gv, _ := schema.ParseGroupVersion(s.APIVersion)
		out = append(out, readiness.Target{GVR: gv.WithResource(s.Resource), Namespace: s.Ref.Namespace, Name: s.Ref.Name})
		crds = crds || s.Ref.Kind == "CustomResourceDefinition"
	}
	return out, crds
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
				if stopRequested(r.e.StateDir, r.run) {
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

func names(ts []readiness.Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.GVR.Resource + "/" + t.Name
	}
	return out
}
