package release

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pynenc/piceli/plan"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// configMapRelease writes, for a fresh namespace of the sandbox, a release
// of n ConfigMaps from a YAML file, with its own state directory, and
// returns its spec's path and the namespace.
func configMapRelease(t *testing.T, n int) (string, string) {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	dir := t.TempDir()
	var docs strings.Builder
	for i := range n {
		fmt.Fprintf(&docs, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  index: %q\n", i, fmt.Sprint(i))
	}
	files := map[string]string{
		"release.toml":           fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"cms\"\ncomposition = \"manifests/\"\nready_timeout = \"1m\"\n", sb.Kubeconfig, sb.Context, ns),
		"manifests/objects.yaml": docs.String(),
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "release.toml"), ns
}

// appliedTwice opens the release at path, plans and applies it, then plans
// it again, checks that this second plan changes nothing, and returns it.
func appliedTwice(t *testing.T, path string) *plan.Plan {
	t.Helper()
	ctx := sandboxtest.Context(t, 2*time.Minute)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(ctx, p.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.Changed() {
		t.Fatalf("a plan right after the apply changes something: %v", q.Counts())
	}
	return q
}

// requests counts the requests sent to the target, by method and path.
type requests struct {
	mu   sync.Mutex
	sent map[string]int // "GET /api/v1/namespaces/x/configmaps"
}

func (c *requests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		c.mu.Lock()
		if c.sent == nil {
			c.sent = map[string]int{}
		}
		c.sent[r.Method+" "+r.URL.Path]++
		c.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (c *requests) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent[key]
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
