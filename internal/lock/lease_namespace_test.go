package lock

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestLeaseNamespaceMaybeAbsent: told the namespace may be absent, Lease
// finds a missing namespace by reading it, without sending the create the
// API server's admission is slow to refuse; a namespace that exists is
// taken as before.
func TestLeaseNamespaceMaybeAbsent(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	opts := LeaseOptions{NamespaceMaybeAbsent: true}
	t.Run("a missing namespace gives ErrNoNamespace without a create", func(t *testing.T) {
		cs, sent := recordingClient(t, sb.RESTConfig)
		_, err := Lease(t.Context(), cs, "piceli-no-such-namespace", release, CurrentHolder("a"), opts)
		if !errors.Is(err, ErrNoNamespace) {
			t.Fatalf("Lease(missing namespace) = %v, want ErrNoNamespace", err)
		}
		if posts := sent("POST"); len(posts) > 0 {
			t.Errorf("Lease(missing namespace) sent %v, want no create", posts)
		}
	})
	t.Run("an existing namespace's Lease is taken", func(t *testing.T) {
		ns := sb.Namespace(t)
		cs, sent := recordingClient(t, sb.RESTConfig)
		l := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), opts)
		defer l.Release(context.Background())
		if got := leaseHolder(t, cs, ns); got.Run != "run-a" {
			t.Errorf("lease held by %v, want run-a", got)
		}
		if posts := sent("POST"); len(posts) != 1 {
			t.Errorf("Lease(existing namespace) sent creates %v, want one", posts)
		}
	})
	t.Run("without the option a missing namespace is found by the create", func(t *testing.T) {
		cs, sent := recordingClient(t, sb.RESTConfig)
		_, err := Lease(t.Context(), cs, "piceli-no-such-namespace", release, CurrentHolder("a"), LeaseOptions{})
		if !errors.Is(err, ErrNoNamespace) {
			t.Fatalf("Lease(missing namespace) = %v, want ErrNoNamespace", err)
		}
		if gets := sent("GET"); strings.Contains(strings.Join(gets, " "), "/api/v1/namespaces/piceli-no-such-namespace ") {
			t.Errorf("Lease without NamespaceMaybeAbsent read the namespace: %v", gets)
		}
	})
}

// recordingClient is a fastClient that records each request as "METHOD
// path "; sent(method) returns those of one method.
func recordingClient(t *testing.T, cfg *rest.Config) (kubernetes.Interface, func(method string) []string) {
	t.Helper()
	var mu sync.Mutex
	var reqs []string
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			reqs = append(reqs, r.Method+" "+r.URL.Path+" ")
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	})
	sent := func(method string) []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, r := range reqs {
			if strings.HasPrefix(r, method+" ") {
				out = append(out, r)
			}
		}
		return out
	}
	return fastClient(t, cfg), sent
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
