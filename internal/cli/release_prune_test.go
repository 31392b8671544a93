package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestReleasePruneDeletesTheLastOfAKind applies a release with a
// ConfigMap, then removes the release's last ConfigMap. The plan must
// delete it although the composition no longer has that kind, and apply
// must do it.
func TestReleasePruneDeletesTheLastOfAKind(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "prune = true\n", map[string]string{
		"cm-a.yaml": configMapYAML("a", "value", "1"),
		"svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n",
	})
	r.apply(t, r.plan(t))

	if err := os.Remove(filepath.Join(filepath.Dir(r.spec), "manifests", "cm-a.yaml")); err != nil {
		t.Fatal(err)
	}

	p := r.plan(t)
	var deletes []string
	for _, s := range p.Steps {
		if s.Action == plan.Delete {
			deletes = append(deletes, s.Ref.String())
		}
	}
	if want := "ConfigMap/" + r.ns + "/a"; len(deletes) != 1 || deletes[0] != want {
		t.Fatalf("plan deletes %q, want only %s", deletes, want)
	}

	r.apply(t, p)
	if !r.gone(t, p.Steps[stepIndex(t, p, "ConfigMap", "a")]) {
		t.Errorf("ConfigMap/%s/a still exists after a plan that deletes it was applied", r.ns)
	}
}

// stepIndex returns the index of the step for kind/name.
func stepIndex(t *testing.T, p *plan.Plan, kind, name string) int {
	t.Helper()
	for i, s := range p.Steps {
		if s.Ref.Kind == kind && s.Ref.Name == name {
			return i
		}
	}
	t.Fatalf("plan has no step for %s/%s", kind, name)
	return -1
}
