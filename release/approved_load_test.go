package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/plan"
)

// openLocal opens a release of one ConfigMap whose spec adds extra to its
// [release] table; nothing contacts a cluster.
func openLocal(t *testing.T, extra string) *Release {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
	os.WriteFile(filepath.Join(dir, "manifests", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"), 0o644)
	spec := "[target]\nkubeconfig = \"kubeconfig\"\ncontext = \"c\"\nnamespace = \"ns\"\n\n[release]\nname = \"r\"\ncomposition = \"manifests/\"\n" + extra
	path := filepath.Join(dir, "release.toml")
	os.WriteFile(path, []byte(spec), 0o644)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The approved plan is loaded, and its seal checked, once per apply: the
// plan precheckEnvironment loaded is the one applied when the state is
// local, and a release whose state was just pulled from the cluster loads
// it again (here it is not stored, so that load fails).
func TestTheApprovedPlanIsLoadedOnce(t *testing.T) {
	const hash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	pre := &plan.Plan{Hash: hash}
	local := openLocal(t, "")
	got, err := local.loadApproved(hash, pre)
	if err != nil || got != pre {
		t.Fatalf("loadApproved(local state, prechecked plan) = %p, %v; want the prechecked plan %p without loading it again", got, err, pre)
	}
	if _, err := local.loadApproved(hash, nil); err == nil {
		t.Fatalf("loadApproved(local state, nothing prechecked) of a plan not stored = nil error, want the load's refusal")
	}
	shared := openLocal(t, "")
	shared.spec.Release.State = spec.StateCluster // what a spec with state = "cluster" and its signers opens as
	if !shared.sharesState() {
		t.Fatal("a release with state in the cluster does not share state")
	}
	if got, err := shared.loadApproved(hash, pre); err == nil {
		t.Fatalf("loadApproved(shared state, prechecked plan) = %p, nil; want it loaded again (and refused: not stored)", got)
	}
}

// precheckAndOpen renders the composition while it loads and checks the
// approved plan, but the plan's refusal still comes first: a plan made for
// another environment is refused, not the broken composition, and nothing
// reaches the cluster (the spec's kubeconfig does not exist). A plan that
// passes gets the render's own error.
func TestTheApprovedPlansRefusalComesBeforeTheRenders(t *testing.T) {
	r := openLocal(t, "")
	manifests := filepath.Join(filepath.Dir(r.path), "manifests")
	if err := os.WriteFile(filepath.Join(manifests, "broken.yaml"), []byte("kind: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := r.StateDir()
	key, err := planner.ReadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := planner.StoreKey(dir, key); err != nil {
		t.Fatal(err)
	}
	store := func(env *plan.Environment) string {
		p := &plan.Plan{Schema: plan.Schema, Release: plan.Release{Name: "r", Owner: "r", FieldManager: "piceli-r"},
			Target: plan.Target{Server: "https://127.0.0.1:6443", Namespace: "ns", ClusterUID: "uid"}, Environment: env}
		hash, err := planner.Save(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		return hash
	}
	_, _, err = r.precheckAndOpen(t.Context(), store(&plan.Environment{Name: "staging"}))
	if err == nil || !strings.Contains(err.Error(), "was made for environment staging") {
		t.Errorf("precheckAndOpen(a plan for staging, a broken composition) = %v, want the environment refusal", err)
	}
	_, _, err = r.precheckAndOpen(t.Context(), store(nil))
	if err == nil || !strings.Contains(err.Error(), "broken.yaml") {
		t.Errorf("precheckAndOpen(a plan for this spec, a broken composition) = %v, want the composition's error", err)
	}
}
