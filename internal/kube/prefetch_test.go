package kube

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestPrefetchFillsWhatAPlanReadsFirst: once Prefetch's reads end, the
// cluster UID and the resolution of declared objects are answered without
// a request.
func TestPrefetchFillsWhatAPlanReadsFirst(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	var mu sync.Mutex
	var sent []string
	c, err := Connect(t.Context(), Options{Kubeconfig: sb.Kubeconfig, Context: sb.Context, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			sent = append(sent, r.Method+" "+r.URL.Path)
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := sandboxtest.Context(t, 30*time.Second)
	c.Prefetch(ctx)()
	mu.Lock()
	prefetched := len(sent)
	mu.Unlock()
	if prefetched == 0 {
		t.Fatal("Prefetch sent no request")
	}
	uid, err := c.ClusterUID(ctx)
	if err != nil || uid == "" {
		t.Fatalf("ClusterUID() = %q, %v", uid, err)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "default"}}}
	if _, err := c.Resolve(ctx, []object.Declared{{Object: cm}}); err != nil {
		t.Fatalf("Resolve() = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if after := sent[prefetched:]; len(after) > 0 {
		t.Errorf("after Prefetch, ClusterUID and Resolve sent %v, want nothing", after)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
