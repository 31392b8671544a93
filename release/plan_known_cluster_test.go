package release

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A plan made again with the hash of the stored plan it turns out to be
// (PlanOptions.Known) is that stored plan, and the plan file is not
// written again; any other hash, or a plan file gone, stores it as usual.
func TestPlanOfAKnownPlanStoresNothing(t *testing.T) {
	path, _ := configMapRelease(t, 3)
	ctx := sandboxtest.Context(t, 2*time.Minute)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(planner.Dir(r.StateDir()), strings.TrimPrefix(first.Hash, "sha256:")+".json")
	stored := inode(t, file)

	again, err := r.Plan(ctx, PlanOptions{Known: first.Hash})
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != first.Hash || again.Inputs != first.Inputs || len(again.Steps) != len(first.Steps) {
		t.Fatalf("plan with its own hash known: %s (inputs %q, %d steps); want the stored %s (inputs %q, %d steps)",
			again.Hash, again.Inputs, len(again.Steps), first.Hash, first.Inputs, len(first.Steps))
	}
	if inode(t, file) != stored {
		t.Error("the plan file was written again, though the plan was the known one")
	}

	other, err := r.Plan(ctx, PlanOptions{Known: "sha256:" + strings.Repeat("0", 64)})
	if err != nil {
		t.Fatalf("plan with another hash known: %v", err)
	}
	if other.Hash != first.Hash {
		t.Fatalf("plan with another hash known: hash %s, want %s", other.Hash, first.Hash)
	}
	if inode(t, file) == stored {
		t.Error("a plan made with another hash known was not stored")
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Plan(ctx, PlanOptions{Known: first.Hash}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := planner.Load(r.StateDir(), first.Hash); err != nil {
		t.Errorf("the known plan's file was gone and planning did not store it again: %v", err)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
