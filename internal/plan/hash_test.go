package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// testKey is the digest key of samplePlan; keyedDir stores it.
var testKey = []byte("piceli test digest key, 32 bytes")

// keyedDir returns a fresh state directory holding testKey.
func keyedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := StoreKey(dir, testKey); err != nil {
		t.Fatal(err)
	}
	return dir
}

// samplePlan is a small valid plan: one create, one update, its Desired
// digests those of its manifests under testKey.
func samplePlan() *Plan {
	p := &Plan{
		Schema:  Schema,
		Release: Release{Name: "shop", Owner: "shop", FieldManager: "piceli-shop"},
		Target:  Target{Server: "https://127.0.0.1:6443", Context: "kwok-piceli", Namespace: "shop", ClusterUID: "uid-1"},
		Steps: []Step{
			{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "cfg"}, APIVersion: "v1", Resource: "configmaps", Stage: graph.StageConfig,
				Action: Create, Observed: Observed{Absent: true}, Manifest: map[string]any{"kind": "ConfigMap"}},
			{Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}, APIVersion: "apps/v1", Resource: "deployments", Stage: graph.StageWorkloads,
				Action: Update, Observed: Observed{UID: "u", ResourceVersion: "7", Generation: 2, Fields: "hmac-sha256:bb"}, Manifest: map[string]any{"kind": "Deployment"},
				Origin: "component web", Changes: []Change{{Path: "spec.replicas", Kind: Changed, From: int64(1), To: int64(2)}}},
		},
		Waves: []graph.Wave{{Stage: graph.StageConfig, Nodes: []int{0}}, {Stage: graph.StageWorkloads, Nodes: []int{1}}},
	}
	for i, s := range p.Steps {
		p.Steps[i].Desired = Digester{Key: testKey}.Of(s.Manifest)
	}
	return p
}

func mustHash(t *testing.T, p *Plan) string {
	t.Helper()
	if err := Validate(p); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	h, err := ComputeHash(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHash(t *testing.T) {
	base := mustHash(t, samplePlan())
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("ComputeHash() = %q, want sha256:<64 hex>", base)
	}
	same := []struct {
		name   string
		change func(*Plan)
	}{
		{"a second computation", func(*Plan) {}},
		{"different diff text", func(p *Plan) { p.Steps[1].Changes = nil }},
		{"a different origin", func(p *Plan) { p.Steps[1].Origin = "elsewhere" }},
		{"the hash field set", func(p *Plan) { p.Hash = "sha256:whatever" }},
	}
	for _, tt := range same {
		p := samplePlan()
		tt.change(p)
		if got := mustHash(t, p); got != base {
			t.Errorf("hash changed with %s", tt.name)
		}
	}
	differ := []struct {
		name   string
		change func(*Plan)
	}{
		{"another namespace", func(p *Plan) { p.Target.Namespace = "other" }},
		{"another context", func(p *Plan) { p.Target.Context = "other" }},
		{"another cluster", func(p *Plan) { p.Target.ClusterUID = "uid-2" }},
		{"another observation", func(p *Plan) { p.Steps[1].Observed.Fields = "hmac-sha256:dd" }},
		{"another desired state", func(p *Plan) { p.Steps[0].Desired = "hmac-sha256:ee" }},
	}
	for _, tt := range differ {
		p := samplePlan()
		tt.change(p)
		if got := mustHash(t, p); got == base {
			t.Errorf("hash did not change with %s", tt.name)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	dir := keyedDir(t)
	p := samplePlan()
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	got, full, err := Load(dir, ShortHash(hash))
	if err != nil || full != hash || got.Steps[1].Changes[0].Path != "spec.replicas" {
		t.Fatalf("Load(short hash) = %v, %q, %v; want the saved plan", got, full, err)
	}
	file := filepath.Join(Dir(dir), strings.TrimPrefix(hash, "sha256:")+".json")
	st, _ := os.Stat(file)
	dst, _ := os.Stat(Dir(dir))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Errorf("plan file mode %v, directory %v; want 0600 and 0700", st.Mode().Perm(), dst.Mode().Perm())
	}
	data, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(data), `"uid-1"`, `"uid-9"`, 1)), 0o600)
	if _, _, err := Load(dir, hash); err == nil || !strings.Contains(err.Error(), "does not match its hash") {
		t.Errorf("Load(edited plan) error = %v, want a hash mismatch", err)
	}
	if _, _, err := Load(dir, "sha256:000000000000"); err == nil || !strings.Contains(err.Error(), "no such plan") {
		t.Errorf("Load(unknown) error = %v, want no such plan", err)
	}
	if _, _, err := Load(dir, "abc"); !errors.Is(err, ErrBadHash) || !strings.Contains(err.Error(), "12 to 64") {
		t.Errorf("Load(too short) error = %v, want ErrBadHash stating the length", err)
	}
}

func TestValidateCatchesBrokenPlans(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Plan)
		want   string
	}{
		{"a create of a present object", func(p *Plan) { p.Steps[0].Observed = Observed{UID: "x"} }, "create of an object observed present"},
		{"an update never observed", func(p *Plan) { p.Steps[1].Observed = Observed{Absent: true} }, "update of an object not observed"},
		{"a step in no wave", func(p *Plan) { p.Waves = p.Waves[:1] }, "waves hold 1 steps, the plan has 2"},
		{"a dependency in a later wave", func(p *Plan) { p.Steps[0].DependsOn = []object.Ref{p.Steps[1].Ref} }, "runs no later than its dependency"},
		{"a conflict that does not block", func(p *Plan) { p.Steps[1].Conflicts = []Conflict{{Manager: "m"}} }, "conflicts without a blocked reason"},
	}
	for _, tt := range tests {
		p := samplePlan()
		tt.change(p)
		if err := Validate(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
