package release

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// An apply of a plan whose files have not changed takes the plan's
// manifests instead of rendering them again, and applies as a render
// would; a byte changed since renders the files again, and a change the
// plan does not hold is still refused as stale, before anything is written.
func TestAnApplyRendersAgainOnlyWhenTheFilesChanged(t *testing.T) {
	path, _ := configMapRelease(t, 3)
	noop := appliedTwice(t, path)
	if noop.Inputs == "" {
		t.Fatal("a plan of YAML files records no digest of them")
	}
	ctx := sandboxtest.Context(t, 2*time.Minute)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, s, err := r.precheckAndOpen(ctx, noop.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !s.fromPlan {
		t.Error("the files did not change since the plan, yet the apply rendered them again")
	}
	if _, err := r.Apply(ctx, noop.Hash, RunOptions{}); err != nil {
		t.Fatalf("apply with the plan's manifests: %v", err)
	}

	file := filepath.Join(filepath.Dir(path), "manifests", "objects.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, append(data, "# the same objects\n"...), 0o644)
	again, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, s, err = r.precheckAndOpen(ctx, again.Hash); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, append(data, "# another comment\n"...), 0o644)
	if _, s2, err := r.precheckAndOpen(ctx, again.Hash); err != nil || s2.fromPlan {
		t.Errorf("after a comment changed, open = %v, from the plan %v; want a render", err, s2 != nil && s2.fromPlan)
	}
	if !s.fromPlan {
		t.Error("the plan of the commented files did not serve the same files")
	}
	if _, err := r.Apply(ctx, again.Hash, RunOptions{}); err != nil {
		t.Fatalf("apply after a comment changed (the same objects): %v", err)
	}

	changed, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte(strings.Replace(string(data), `index: "0"`, `index: "zero"`, 1)), 0o644)
	_, err = r.Apply(ctx, changed.Hash, RunOptions{})
	var stale *StaleError
	if !errors.As(err, &stale) {
		t.Fatalf("apply after a value changed = %v, want a *StaleError", err)
	}
}
