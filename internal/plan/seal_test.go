package plan

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
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
