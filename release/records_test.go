package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// A release applied again unchanged approves the plan its latest revision
// applied: the records take that plan, already loaded and checked, instead
// of reading its file a second time. Any other plan is not taken for it.
func TestReadRecordsTakesTheApprovedPlanTheLatestRevisionApplied(t *testing.T) {
	dir, _, rev := appliedRevision(t)
	approved, _, err := planner.Load(dir, rev.Plan)
	if err != nil {
		t.Fatal(err)
	}
	read, err := readRecords(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if read.applied() == nil || read.applied().Hash != rev.Plan {
		t.Fatalf("readRecords(nil).applied = %v, want plan %s read from its file", read.applied(), rev.Plan)
	}
	// With the file gone, only the plan in hand can answer.
	removePlanFile(t, dir, rev.Plan)
	got, err := readRecords(dir, approved)
	if err != nil {
		t.Fatal(err)
	}
	if got.applied() != approved {
		t.Errorf("readRecords(approved).applied = %p, want the approved plan %p", got.applied(), approved)
	}
	other := *approved
	other.Hash = "sha256:" + strings.Repeat("0", 64)
	if got, _ := readRecords(dir, &other); got.applied() != nil {
		t.Errorf("readRecords(another plan).applied() = %s, want none (the revision's own plan file is gone)", got.applied().Hash)
	}
}

// removePlanFile deletes the stored file of the plan hash names.
func removePlanFile(t *testing.T, dir, hash string) {
	t.Helper()
	name := strings.TrimPrefix(hash, "sha256:") + ".json"
	if err := os.Remove(filepath.Join(dir, "plans", name)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := planner.Load(dir, hash); err == nil {
		t.Fatalf("plan %s still loads after its file was removed", plan.ShortHash(hash))
	}
}
