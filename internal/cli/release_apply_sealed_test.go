package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A stored plan edited as an attacker would (a ConfigMap's data changed,
// the SHA-256 recomputed, the file renamed to the new hash) is refused when
// approved: exit 2 naming the plan and the step, the ConfigMap never
// written, no run and no revision. The unedited plan still applies, and
// history records the value the composition renders.
func TestApplyRefusesEditedPlan(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{"settings.yaml": configMapYAML("settings", "mode", "fast")})
	honest := r.plan(t)
	edited := r.editStoredPlan(t, honest.Hash, func(p *plan.Plan) {
		stepOf(t, p, "ConfigMap", "settings").Manifest["data"] = map[string]any{"mode": "EVIL"} // a map: edited in p
	})

	res := run(t, "release", "apply", "--spec", r.spec, "--approve", edited)
	ref := "ConfigMap/" + r.ns + "/settings"
	if res.code != ExitRefused || !strings.Contains(res.stderr, plan.ShortHash(edited)) || !strings.Contains(res.stderr, ref) {
		t.Fatalf("apply --approve of an edited plan: exit %d, stderr:\n%s\nwant exit 2 naming plan %s and %s", res.code, res.stderr, plan.ShortHash(edited), ref)
	}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get ConfigMap settings after the refused apply: %v, want not found", err)
	}
	if _, err := os.Stat(apply.RunDir(r.stateDir, "")); !os.IsNotExist(err) {
		t.Errorf("the refused apply created the runs directory (stat: %v)", err)
	}
	if revs, err := history.List(r.stateDir); len(revs) != 0 || err != nil {
		t.Errorf("history.List() after the refused apply = %d revisions, %v; want none", len(revs), err)
	}

	again := r.plan(t)
	r.apply(t, again)
	if got := liveMode(t, r); got != "fast" {
		t.Errorf("live ConfigMap settings mode = %q, want the rendered %q", got, "fast")
	}
	if got := revisionMode(t, r); got != "fast" {
		t.Errorf("history records ConfigMap settings mode = %q, want the rendered %q", got, "fast")
	}
}

// editStoredPlan rewrites the stored plan hash with edit, recomputes its
// hash as ComputeHash does and moves the file to the new name, keeping
// whatever else the file holds; it returns the new hash.
func (r *testRelease) editStoredPlan(t *testing.T, hash string, edit func(*plan.Plan)) string {
	t.Helper()
	old := filepath.Join(plan.Dir(r.stateDir), strings.TrimPrefix(hash, "sha256:")+".json")
	data, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	var p plan.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	edit(&p)
	if p.Hash, err = plan.ComputeHash(&p); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(&p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(plan.Dir(r.stateDir), strings.TrimPrefix(p.Hash, "sha256:")+".json")
	if err := os.WriteFile(name, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	return p.Hash
}

// liveMode returns data.mode of the live ConfigMap settings.
func liveMode(t *testing.T, r *testRelease) string {
	t.Helper()
	cm, err := r.sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data["mode"]
}

// revisionMode returns data.mode of ConfigMap settings in the latest
// revision.
func revisionMode(t *testing.T, r *testRelease) string {
	t.Helper()
	rev, err := history.Latest(r.stateDir)
	if err != nil || rev == nil {
		t.Fatalf("history.Latest() = %v, %v; want the applied revision", rev, err)
	}
	for _, o := range rev.Objects {
		if o.Ref.Kind == "ConfigMap" && o.Ref.Name == "settings" {
			mode, _, _ := unstructured.NestedString(o.Manifest, "data", "mode")
			return mode
		}
	}
	t.Fatalf("revision %d has no ConfigMap settings", rev.Number)
	return ""
}
