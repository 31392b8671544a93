package plan

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// envPlan is samplePlan made for environment staging.
func envPlan() *Plan {
	p := samplePlan()
	p.Environment = &Environment{Name: "staging", Values: Digester{Key: testKey}.Of(map[string]string{"greeting": "hi"}),
		Images: map[string]string{"web": "example.com/web@sha256:" + strings.Repeat("a", 64)}}
	return p
}

// The plan hash binds the environment: its name, its values and its
// images each change it, and a plan without environments hashes as
// before the field existed.
func TestHashBindsTheEnvironment(t *testing.T) {
	base := mustHash(t, envPlan())
	tests := []struct {
		name string
		edit func(p *Plan)
	}{
		{"another environment's name", func(p *Plan) { p.Environment.Name = "prod" }},
		{"other values", func(p *Plan) { p.Environment.Values = Digester{Key: testKey}.Of(map[string]string{"greeting": "ho"}) }},
		{"another image", func(p *Plan) { p.Environment.Images["web"] = "example.com/web@sha256:" + strings.Repeat("b", 64) }},
		{"no environment", func(p *Plan) { p.Environment = nil }},
		{"a promotion", func(p *Plan) { p.Environment.Promoted = promotion() }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" gives another hash", func(t *testing.T) {
			p := envPlan()
			tt.edit(p)
			if got := mustHash(t, p); got == base {
				t.Errorf("ComputeHash() with %s = %s, the staging plan's", tt.name, got)
			}
		})
	}
	t.Run("a plan without environments encodes no environment", func(t *testing.T) {
		data, err := json.Marshal(samplePlan())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `"environment"`) {
			t.Errorf("a plan without environments encodes one: %s", data)
		}
	})
}

// promotion is a promotion of revision 3 of environment dev.
func promotion() *Promotion {
	return &Promotion{From: "dev", Revision: 3, Plan: "sha256:" + strings.Repeat("c", 64), Images: map[string]string{"web": "example.com/web@sha256:" + strings.Repeat("d", 64)}}
}

// A promoted plan's hash binds what it promotes: the source's revision
// and each image it sets.
func TestHashBindsThePromotion(t *testing.T) {
	promoted := func() *Plan {
		p := envPlan()
		p.Environment.Promoted = promotion()
		return p
	}
	base := mustHash(t, promoted())
	for name, edit := range map[string]func(p *Promotion){
		"another source":   func(p *Promotion) { p.From = "qa" },
		"another revision": func(p *Promotion) { p.Revision = 2 },
		"another image":    func(p *Promotion) { p.Images["web"] = "example.com/web@sha256:" + strings.Repeat("e", 64) },
		"one more image":   func(p *Promotion) { p.Images["api"] = "example.com/api@sha256:" + strings.Repeat("e", 64) },
	} {
		p := promoted()
		edit(p.Environment.Promoted)
		if mustHash(t, p) == base {
			t.Errorf("a promotion with %s hashes as the original", name)
		}
		if p.Environment.Same(promoted().Environment) {
			t.Errorf("a promotion with %s is the Same environment as the original", name)
		}
	}
}

// A stored plan records its environment, and the stored file's hash
// still covers it: editing the environment in the file is refused.
func TestStoredPlanRecordsItsEnvironment(t *testing.T) {
	dir := keyedDir(t)
	p := envPlan()
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(dir, hash)
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if !got.Environment.Same(p.Environment) {
		t.Errorf("Load().Environment = %+v, want %+v", got.Environment, p.Environment)
	}
	data, err := os.ReadFile(file(dir, hash))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"name":"staging"`, `"name":"prod"`, 1)
	if edited == string(data) {
		t.Fatalf("the stored plan does not record environment staging:\n%s", data)
	}
	if err := os.WriteFile(file(dir, hash), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir, hash); err == nil || !strings.Contains(err.Error(), "does not match its hash") {
		t.Errorf("Load() of a plan whose environment was edited = %v, want a hash mismatch", err)
	}
}

// Renaming a stored plan's environment and rehashing it, as someone
// without the digest key would, breaks its seal.
func TestRenamingAPlansEnvironmentBreaksItsSeal(t *testing.T) {
	dir := keyedDir(t)
	hash, err := Save(dir, envPlan())
	if err != nil {
		t.Fatal(err)
	}
	renamed := tamper(t, dir, hash, func(p *Plan) { p.Environment.Name = "prod" })
	if _, _, err := Load(dir, renamed); err == nil {
		t.Errorf("Load() of a plan renamed to environment prod = nil error, want its seal refused")
	}
}

func TestStaleNamesAnotherEnvironment(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *Plan)
		want string
	}{
		{"another environment", func(p *Plan) { p.Environment.Name = "prod" }, "the environment differs: approved for environment staging, now environment prod"},
		{"changed values", func(p *Plan) { p.Environment.Values = "hmac-sha256:other" }, "environment staging's values or images changed since the plan"},
		{"no environment", func(p *Plan) { p.Environment = nil }, "the environment differs: approved for environment staging, now no environment"},
		{"a promotion the approved plan lacks", func(p *Plan) { p.Environment.Promoted = promotion() }, "environment staging's values or images changed since the plan"},
		{"the same environment", func(p *Plan) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := envPlan()
			tt.edit(fresh)
			got := strings.Join(Stale(envPlan(), fresh), "; ")
			if got != tt.want {
				t.Errorf("Stale() = %q, want %q", got, tt.want)
			}
		})
	}
}
