package plan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/plan"
)

func hashOf(t *testing.T, p *plan.Plan) string {
	t.Helper()
	h, err := plan.ComputeHash(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPlanHashIsBoundToTheTarget plans the hello example twice (same hash),
// through a second context name for the same cluster (another hash) and
// into another namespace (another hash).
func TestPlanHashIsBoundToTheTarget(t *testing.T) {
	f := example(t, "hello")
	base := hashOf(t, f.plan(t, plan.Options{}))
	if again := hashOf(t, f.plan(t, plan.Options{})); again != base {
		t.Errorf("two plans of the same inputs: %s and %s, want one hash", base, again)
	}

	other := *f
	other.client = connectAs(t, f, "second-name")
	if h := hashOf(t, other.plan(t, plan.Options{})); h == base {
		t.Errorf("a plan through another context has the same hash %s", h)
	}

	g := example(t, "hello")
	if h := hashOf(t, g.plan(t, plan.Options{})); h == base {
		t.Errorf("a plan for namespace %s has the same hash as one for %s", g.ns, f.ns)
	}
}

// connectAs copies the sandbox kubeconfig with its context renamed.
func connectAs(t *testing.T, f *fixture, contextName string) *kube.Client {
	t.Helper()
	data, err := os.ReadFile(f.sb.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.ReplaceAll(string(data), f.sb.Context, contextName)
	path := filepath.Join(t.TempDir(), "renamed.kubeconfig")
	if err := os.WriteFile(path, []byte(renamed), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := kube.Connect(t.Context(), kube.Options{Kubeconfig: path, Context: contextName})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
