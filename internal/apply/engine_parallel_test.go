package apply

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/plan"
)

// A wave's writes are bounded by Options.Parallel (0: DefaultParallel):
// with each write held a moment, the most in flight at once is the bound,
// never more, and the bound is used, not left idle.
func TestAWaveKeepsAtMostParallelWritesInFlight(t *testing.T) {
	for _, tc := range []struct {
		name     string
		parallel int
		want     int
	}{
		{"an explicit bound", 3, 3},
		{"the default", 0, DefaultParallel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gauge{hold: 50 * time.Millisecond}
			e := newEngine(t, newFakeCluster(), Options{Parallel: tc.parallel})
			e.Client = &kube.Client{Dynamic: g.wrap(e.Client.Dynamic)}
			var steps []plan.Step
			for i := range 2*tc.want + 1 {
				steps = append(steps, createStep(configMap(fmt.Sprintf("cm-%02d", i), "v")))
			}
			if _, err := e.Apply(t.Context(), "run-1", inputOf(t, steps)); err != nil {
				t.Fatal(err)
			}
			if got := g.max.Load(); got != int64(tc.want) {
				t.Errorf("%d writes of one wave with Parallel %d: at most %d in flight, want %d", len(steps), tc.parallel, got, tc.want)
			}
		})
	}
}

// gauge wraps a dynamic client: every apply is held for hold before it is
// sent, and max records the most applies in flight at once.
type gauge struct {
	hold    time.Duration
	in, max atomic.Int64
}

func (g *gauge) wrap(d dynamic.Interface) dynamic.Interface { return gaugedClient{d, g} }

type gaugedClient struct {
	dynamic.Interface
	g *gauge
}

func (c gaugedClient) Resource(r schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return gaugedResource{c.Interface.Resource(r), c.g}
}

type gaugedResource struct {
	dynamic.NamespaceableResourceInterface
	g *gauge
}

func (r gaugedResource) Namespace(ns string) dynamic.ResourceInterface {
	return gaugedNamespaced{r.NamespaceableResourceInterface.Namespace(ns), r.g}
}

type gaugedNamespaced struct {
	dynamic.ResourceInterface
	g *gauge
}

func (r gaugedNamespaced) Apply(ctx context.Context, name string, obj *unstructured.Unstructured, opts metav1.ApplyOptions, sub ...string) (*unstructured.Unstructured, error) {
	n := r.g.in.Add(1)
	defer r.g.in.Add(-1)
	for m := r.g.max.Load(); n > m && !r.g.max.CompareAndSwap(m, n); m = r.g.max.Load() {
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(r.g.hold):
	}
	return r.ResourceInterface.Apply(ctx, name, obj, opts, sub...)
}
