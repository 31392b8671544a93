package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A plan refused after the secrets were resolved (here: a kind the cluster
// does not serve) stores nothing: no secret version, no key, no plan. A
// generated value is saved only with the plan that uses it.
func TestRefusedPlanStoresNoSecretVersion(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	widget := goComposition{
		imports: "\t\"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured\"\n",
		body:    "\ta.Unstructured(&unstructured.Unstructured{Object: map[string]any{\"apiVersion\": \"example.com/v1\", \"kind\": \"Widget\", \"metadata\": map[string]any{\"name\": \"w\"}}})\n",
	}
	r := newSecretRelease(t, sb, "", []secretKey{{key: "gen", source: `app.Generated("gen", 24)`}}, widget)
	res := run(t, "release", "plan", "--spec", r.spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, `no kind "Widget"`) {
		t.Fatalf("plan with an unserved kind: exit %d, want 2 naming the kind\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(r.stateDir); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(r.stateDir)
		t.Errorf("a refused plan left state behind: %v", entries)
	}
}
