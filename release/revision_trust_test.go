package release

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// appliedRevision stores, in a fresh state directory, a plan creating a
// ConfigMap and the revision its run recorded, as the engine does, and
// returns the directory, the digest key and the revision.
func appliedRevision(t *testing.T) (string, []byte, history.Revision) {
	t.Helper()
	dir := t.TempDir()
	key, err := planner.ReadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := planner.StoreKey(dir, key); err != nil {
		t.Fatal(err)
	}
	dig := planner.Digester{Key: key}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg", "namespace": "shop"}, "data": map[string]any{"mode": "safe"}}
	step := plan.Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "cfg"}, APIVersion: "v1", Resource: "configmaps", Stage: graph.StageConfig,
		Action: plan.Create, Observed: plan.Observed{Absent: true}, Manifest: cm, Desired: dig.Of(cm)}
	p := &plan.Plan{Schema: plan.Schema, Release: plan.Release{Name: "shop", Owner: "shop", FieldManager: "piceli-shop"},
		Target: plan.Target{Server: "https://127.0.0.1:6443", Namespace: "shop", ClusterUID: "uid"},
		Steps:  []plan.Step{step}, Waves: []graph.Wave{{Stage: graph.StageConfig, Nodes: []int{0}}}}
	hash, err := planner.Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	rev := history.Revision{Plan: hash, Run: "run-1", Outcome: "finished", Objects: []history.Object{{Ref: step.Ref, APIVersion: "v1", Resource: "configmaps", Manifest: cm}}}
	if _, err := history.Add(dir, key, rev); err != nil {
		t.Fatal(err)
	}
	return dir, key, rev
}

// forge replaces revision 1 of dir with rev, sealed with key when resealed
// (an attacker who holds the digest key), else with its seal left as it was.
func forge(t *testing.T, dir string, key []byte, rev history.Revision, resealed bool) {
	t.Helper()
	other := t.TempDir()
	if _, err := history.Add(other, key, rev); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(other, "history", "000001.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !resealed {
		orig, _ := history.Load(dir, 1)
		forged, _ := history.Load(other, 1)
		data = []byte(strings.Replace(string(data), forged.Seal, orig.Seal, 1))
	}
	if err := os.WriteFile(filepath.Join(dir, "history", "000001.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// clusterAdmin is the object a forger adds: a binding to cluster-admin.
var clusterAdmin = history.Object{
	Ref: object.Ref{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Name: "pwn"}, APIVersion: "rbac.authorization.k8s.io/v1", Resource: "clusterrolebindings",
	Manifest: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "pwn"},
		"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}},
}

// A revision is applied again only when its seal holds and its objects
// are exactly what its sealed plan applied: an object added or a manifest
// changed by hand fails its seal, and one re-sealed by someone holding the
// digest key still fails against its plan; a revision whose plan is gone
// or edited cannot be checked and is refused too.
func TestCheckRevision(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string, key []byte, rev history.Revision)
		want   string // "" passes
	}{
		{name: "the revision as recorded passes", damage: func(*testing.T, string, []byte, history.Revision) {}},
		{name: "a ClusterRoleBinding added by hand fails the seal", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			rev.Objects = append(rev.Objects, clusterAdmin)
			forge(t, dir, key, rev, false)
		}, want: "does not match its seal"},
		{name: "forged ConfigMap data fails the seal", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			rev.Objects[0].Manifest = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg", "namespace": "shop"}, "data": map[string]any{"mode": "forged"}}
			forge(t, dir, key, rev, false)
		}, want: "does not match its seal"},
		{name: "a ClusterRoleBinding re-sealed with the digest key fails against its plan", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			rev.Objects = append(rev.Objects, clusterAdmin)
			forge(t, dir, key, rev, true)
		}, want: "holds 2 objects, the plan applied 1"},
		{name: "forged data re-sealed with the digest key fails against its plan", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			rev.Objects[0].Manifest = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg", "namespace": "shop"}, "data": map[string]any{"mode": "forged"}}
			forge(t, dir, key, rev, true)
		}, want: "ConfigMap/shop/cfg is not the manifest the plan applied"},
		{name: "a revision without a seal is refused", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			path := filepath.Join(dir, "history", "000001.json")
			data, _ := os.ReadFile(path)
			r, _ := history.Load(dir, 1)
			os.WriteFile(path, []byte(strings.Replace(string(data), r.Seal, "", 1)), 0o600)
		}, want: "has no seal"},
		{name: "a revision whose plan is gone is refused", damage: func(t *testing.T, dir string, key []byte, rev history.Revision) {
			if err := planner.Remove(dir, rev.Plan); err != nil {
				t.Fatal(err)
			}
		}, want: "cannot be checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, key, rev := appliedRevision(t)
			tt.damage(t, dir, key, rev)
			_, err := trustedRevision(dir, key, 1)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("trustedRevision() = %v, want it to pass", err)
				}
				return
			}
			if !errors.Is(err, ErrRevisionDamaged) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "revision 1 is damaged") {
				t.Fatalf("trustedRevision() = %v, want ErrRevisionDamaged saying %q", err, tt.want)
			}
		})
	}
}
