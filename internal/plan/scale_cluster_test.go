package plan_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// counter counts requests by method, and the LIST pages of ConfigMaps.
type counter struct{ gets, lists, configMapPages, applies, other atomic.Int64 }

func (c *counter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		switch {
		case r.Method == http.MethodPatch:
			c.applies.Add(1)
		case r.Method == http.MethodGet && r.URL.Query().Has("limit"):
			c.lists.Add(1)
			if strings.HasSuffix(r.URL.Path, "/configmaps") {
				c.configMapPages.Add(1)
			}
		case r.Method == http.MethodGet:
			c.gets.Add(1)
		default:
			c.other.Add(1)
		}
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestPlanRoundTripsStayBounded plans 1,000 ConfigMaps, first absent then
// present: reads are one LIST per page of each kind, never a GET per
// object, and 1,000 ConfigMaps fit one page (at kubectl's 500 a page they
// took three round trips, one after another). Each object costs one
// dry-run apply (parallel).
func TestPlanRoundTripsStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 1,000 objects; skipped with -short")
	}
	const n = 1000
	f := example(t, "hello")
	f.input.Objects = nil
	var objs []*unstructured.Unstructured
	for i := range n {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"i": fmt.Sprint(i)}}}
		cm.SetName(fmt.Sprintf("cm-%04d", i))
		cm.SetNamespace(f.ns)
		cm.SetLabels(map[string]string{"piceli.dev/release": "hello"})
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
		objs = append(objs, cm)
	}
	for _, phase := range []string{"absent", "present"} {
		var c counter
		client, err := kube.Connect(t.Context(), kube.Options{Kubeconfig: f.sb.Kubeconfig, Context: f.sb.Context, WrapTransport: c.wrap})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		p, err := plan.Make(sandboxtest.Context(t, 5*time.Minute), client, f.input, plan.Options{Key: testKey})
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		t.Logf("plan of %d objects (%s): %v; %d LIST, %d GET (identity, discovery), %d dry-run applies, %d other; %s",
			n, phase, elapsed.Round(time.Millisecond), c.lists.Load(), c.gets.Load(), c.applies.Load(), c.other.Load(), p.Summary())
		if c.lists.Load() > 10 || c.gets.Load() > 40 || c.applies.Load() != n {
			t.Errorf("%s: %d LISTs, %d GETs, %d applies; want at most 10 LISTs (pages), a handful of GETs and exactly one dry-run per object", phase, c.lists.Load(), c.gets.Load(), c.applies.Load())
		}
		if got := c.configMapPages.Load(); got != 1 {
			t.Errorf("%s: the ConfigMaps took %d LIST pages, want 1", phase, got)
		}
		if phase == "absent" {
			f.apply(t, objs...)
		}
	}
}
