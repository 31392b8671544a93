package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/statedir"
)

// tamper edits the plan stored under hash as an attacker without the
// digest key would: edit the decoded plan, recompute its hash and move the
// file to the new name. It returns the new hash.
func tamper(t *testing.T, dir, hash string, edit func(*Plan)) string {
	t.Helper()
	data, err := os.ReadFile(file(dir, hash))
	if err != nil {
		t.Fatal(err)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	edit(&p)
	if p.Hash, err = ComputeHash(&p); err != nil {
		t.Fatal(err)
	}
	if data, err = json.Marshal(&p); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file(dir, hash)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file(dir, p.Hash), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p.Hash
}

func TestLoadRefusesEditedPlan(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Plan)
		want string // what the error names
	}{
		{"an edited manifest", func(p *Plan) { p.Steps[0].Manifest["data"] = map[string]any{"a": "EVIL"} }, "step 0 ConfigMap/shop/cfg"},
		{"an edited change", func(p *Plan) { p.Steps[1].Changes[0].To = 20 }, "step 1 Deployment/shop/web"},
		{"an added change", func(p *Plan) { p.Steps[0].Changes = []Change{{Path: "data.a", Kind: Added, To: "harmless"}} }, "step 0 ConfigMap/shop/cfg"},
		{"an edited observation", func(p *Plan) { p.Steps[1].Observed.Fields = "hmac-sha256:other" }, "step 1 Deployment/shop/web"},
		{"an edited origin", func(p *Plan) { p.Steps[1].Origin = "component db" }, "step 1 Deployment/shop/web"},
		{"a seal copied from another step", func(p *Plan) { p.Steps[1].Seal = p.Steps[0].Seal }, "step 1 Deployment/shop/web"},
		{"an edited target", func(p *Plan) { p.Target.Namespace = "other" }, "target"},
		{"an edited wave", func(p *Plan) { p.Waves[1].Stage = p.Waves[0].Stage }, "waves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := keyedDir(t)
			hash, err := Save(dir, samplePlan())
			if err != nil {
				t.Fatal(err)
			}
			edited := tamper(t, dir, hash, tt.edit)
			_, _, err = Load(dir, edited)
			if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), ShortHash(edited)) {
				t.Errorf("Load(plan with %s) error = %v; want ErrTampered naming plan %s and %q", tt.name, err, ShortHash(edited), tt.want)
			}
		})
	}
}

func TestLoadRefusesUnsealedPlan(t *testing.T) {
	dir := keyedDir(t)
	hash, err := Save(dir, samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	// As a Piceli older than seals stored it: the same hash, no seals.
	tamper(t, dir, hash, func(p *Plan) {
		p.Seal = ""
		for i := range p.Steps {
			p.Steps[i].Seal = ""
		}
	})
	if _, _, err := Load(dir, hash); !errors.Is(err, ErrUnsealed) || !strings.Contains(err.Error(), "plan again") {
		t.Errorf("Load(unsealed plan) error = %v; want ErrUnsealed asking to plan again", err)
	}
}

func TestLoadRefusesPlanSealedWithAnotherKey(t *testing.T) {
	dir := keyedDir(t)
	hash, err := Save(dir, samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile(dir), []byte(strings.Repeat("k", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, hash); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "digest key changed") {
		t.Errorf("Load(plan sealed with another key) error = %v; want ErrTampered", err)
	}
	if err := os.Remove(keyFile(dir)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, hash); err == nil || !strings.Contains(err.Error(), "no digest key") {
		t.Errorf("Load(plan of a release without a key) error = %v; want no digest key", err)
	}
}

// A seal says the planner stored the plan; the manifest history records
// must still be the one the Desired digest apply compares stands for.
func TestLoadRefusesManifestThatDoesNotMatchItsDigest(t *testing.T) {
	dir := keyedDir(t)
	p := samplePlan()
	p.Steps[1].Manifest = map[string]any{"kind": "Deployment", "spec": map[string]any{"replicas": 9}}
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, hash); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "step 1 Deployment/shop/web: manifest does not match its desired digest") {
		t.Errorf("Load(plan whose manifest does not digest to Desired) error = %v; want ErrTampered naming step 1", err)
	}
}

func TestSealKeepsTheHashAndLoads(t *testing.T) {
	dir := keyedDir(t)
	unsealed := mustHash(t, samplePlan())
	p := samplePlan()
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if hash != unsealed || mustHash(t, p) != unsealed {
		t.Errorf("Save() = %s, sealed plan hashes to %s; want the unsealed hash %s", hash, mustHash(t, p), unsealed)
	}
	if p.Seal == "" || p.Steps[0].Seal == "" || p.Steps[1].Seal == "" {
		t.Fatalf("Save() left seals empty: plan %q, steps %q %q", p.Seal, p.Steps[0].Seal, p.Steps[1].Seal)
	}
	got, _, err := Load(dir, hash)
	if err != nil || got.Seal != p.Seal || got.Steps[1].Changes[0].Path != "spec.replicas" {
		t.Errorf("Load(unedited plan) = %+v, %v; want the saved plan", got, err)
	}
}

// Save records a seal over the plan file's bytes, on this machine only;
// Load then takes the file it matches as is (the same plan a full check
// returns). The seal of another plan, or of this one before an edit, does
// not stand in for it, and Remove takes it away with the plan.
func TestAFileSealStandsOnlyForTheFileSaveWrote(t *testing.T) {
	dir := keyedDir(t)
	hash, err := Save(dir, samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	sealPath := fileSealPath(dir, hash)
	rel, _ := filepath.Rel(dir, sealPath)
	if _, err := os.Stat(sealPath); err != nil || statedir.Shared(filepath.ToSlash(rel)) {
		t.Fatalf("file seal %s: %v, shared %v; want it stored and machine-local", rel, err, statedir.Shared(filepath.ToSlash(rel)))
	}
	data, err := os.ReadFile(file(dir, hash))
	if err != nil {
		t.Fatal(err)
	}
	loadsAsTheFullCheck(t, dir, hash)

	other := samplePlan()
	other.Steps = other.Steps[:1]
	otherHash, err := Save(dir, other)
	if err != nil || otherHash == hash {
		t.Fatalf("Save(another plan) = %s, %v; want another hash", otherHash, err)
	}
	otherData, _ := os.ReadFile(file(dir, otherHash))
	otherSeal, _ := os.ReadFile(fileSealPath(dir, otherHash))
	for name, forge := range map[string]func(){
		"another plan's file and seal under this hash": func() {
			os.WriteFile(file(dir, hash), otherData, 0o600)
			os.WriteFile(sealPath, otherSeal, 0o600)
		},
		"this plan edited, its seal kept": func() {
			os.WriteFile(file(dir, hash), bytes.Replace(data, []byte("spec.replicas"), []byte("spec.replicaz"), 1), 0o600)
		},
	} {
		forge()
		if _, _, err := Load(dir, hash); err == nil {
			t.Errorf("Load(%s) = nil error; want it refused", name)
		}
		os.WriteFile(file(dir, hash), data, 0o600)
		if err := (func() error { s, _ := newSealer(testKey); return s.storeFileSeal(dir, hash, data) })(); err != nil {
			t.Fatal(err)
		}
	}
	if err := Remove(dir, hash); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sealPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file seal after Remove: %v; want it gone", err)
	}
}

// LoadSteps gives a stored plan's steps, everything but their manifests,
// whether the file carries this machine's seal or takes the full check;
// an edited file is refused either way.
func TestLoadStepsIsLoadWithoutManifests(t *testing.T) {
	dir := keyedDir(t)
	hash, err := Save(dir, samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Load(dir, hash)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Steps {
		want.Steps[i].Manifest = nil
	}
	check := func(how string) {
		t.Helper()
		got, full, err := LoadSteps(dir, ShortHash(hash))
		if err != nil || full != hash {
			t.Fatalf("LoadSteps (%s) = %s, %v; want plan %s", how, full, err, hash)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("LoadSteps (%s) differs from Load without manifests (-want +got):\n%s", how, d)
		}
	}
	check("sealed file")
	if err := os.Remove(fileSealPath(dir, hash)); err != nil {
		t.Fatal(err)
	}
	check("no file seal: full check")

	data, _ := os.ReadFile(file(dir, hash))
	os.WriteFile(file(dir, hash), bytes.Replace(data, []byte("spec.replicas"), []byte("spec.replicaz"), 1), 0o600)
	if _, _, err := LoadSteps(dir, hash); err == nil {
		t.Error("LoadSteps of an edited plan without a file seal = nil error; want it refused")
	}
	if s, _ := newSealer(testKey); s.storeFileSeal(dir, hash, data) != nil {
		t.Fatal("store file seal")
	}
	if _, _, err := LoadSteps(dir, hash); err == nil {
		t.Error("LoadSteps of an edited plan under the old file's seal = nil error; want it refused")
	}
}

// A large sealed plan, its manifests decoded on every core, loads exactly
// as the full check decodes it, each manifest with its own step.
func TestALargeSealedPlanLoadsAsTheFullCheckDoes(t *testing.T) {
	dir := keyedDir(t)
	p := samplePlan()
	p.Steps, p.Waves = nil, []graph.Wave{{Stage: graph.StageConfig}}
	for i := range 300 {
		m := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}, "data": map[string]any{"n": float64(i)}}
		p.Steps = append(p.Steps, Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: fmt.Sprintf("cm-%d", i)}, APIVersion: "v1", Resource: "configmaps",
			Stage: graph.StageConfig, Action: Create, Observed: Observed{Absent: true}, Manifest: m, Desired: Digester{Key: testKey}.Of(m)})
		p.Waves[0].Nodes = append(p.Waves[0].Nodes, i)
	}
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	loadsAsTheFullCheck(t, dir, hash)
}

// fullCheck loads the plan stored under hash as Load does without a file
// seal: decoded, checked against its hash and against its seal.
func fullCheck(t *testing.T, dir, hash string) *Plan {
	t.Helper()
	data, err := os.ReadFile(file(dir, hash))
	if err != nil {
		t.Fatal(err)
	}
	p, ms, err := decode(data, hash)
	if err == nil {
		err = unseal(dir, p, ms)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// loadsAsTheFullCheck wants Load, through the file seal Save wrote, to give
// the plan the full check gives.
func loadsAsTheFullCheck(t *testing.T, dir, hash string) {
	t.Helper()
	full := fullCheck(t, dir, hash)
	fast, _, err := Load(dir, hash)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(full, fast); d != "" {
		t.Errorf("Load through the file seal differs from a full check (-full +fast):\n%s", d)
	}
}
