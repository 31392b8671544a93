package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestReleasePruneDeletesTheLastOfAKindAndNothingElse applies a release
// with a ConfigMap, then removes the release's last ConfigMap while
// someone else's ConfigMap carries the release label. The plan must
// delete the removed one (a kind the composition no longer has), keep the
// other and say why, in its document and its text; apply must do exactly
// that.
func TestReleasePruneDeletesTheLastOfAKindAndNothingElse(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "prune = true\n", map[string]string{
		"cm-a.yaml": configMapYAML("a", "value", "1"),
		"svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n",
	})
	r.apply(t, r.plan(t))

	intruder := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "intruder", Labels: map[string]string{object.ReleaseLabel: r.name}}}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Create(t.Context(), intruder, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
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
	if len(p.Kept) != 1 || p.Kept[0].Ref.Name != "intruder" || p.Kept[0].Reason != plan.KeepNotCreated {
		t.Errorf("plan.Kept = %+v, want ConfigMap/%s/intruder kept as %s", p.Kept, r.ns, plan.KeepNotCreated)
	}
	text := run(t, "release", "plan", "--spec", r.spec)
	if want := "kept, not deleted (1):\n  = ConfigMap/" + r.ns + "/intruder: carries the release label, but this release never created it"; !strings.Contains(text.stdout, want) {
		t.Errorf("plan text does not contain %q:\n%s", want, text.stdout)
	}

	r.apply(t, p)
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "intruder", metav1.GetOptions{}); err != nil {
		t.Errorf("get ConfigMap/%s/intruder after apply: %v; prune must keep it", r.ns, err)
	}
	if !r.gone(t, p.Steps[stepNamed(t, p, "ConfigMap", "a")]) {
		t.Errorf("ConfigMap/%s/a still exists after a plan that deletes it was applied", r.ns)
	}
}

// stepIndex returns the index of the step for kind/name.
func stepNamed(t *testing.T, p *plan.Plan, kind, name string) int {
	t.Helper()
	for i, s := range p.Steps {
		if s.Ref.Kind == kind && s.Ref.Name == name {
			return i
		}
	}
	t.Fatalf("plan has no step for %s/%s", kind, name)
	return -1
}
