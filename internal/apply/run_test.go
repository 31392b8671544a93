package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

func TestFinishedRunNamesItsRevisionWhenOnlyTheHistoryIndexFails(t *testing.T) {
	dir := t.TempDir()
	// A plan without waves writes nothing, so no cluster is needed.
	p := &plan.Plan{Schema: plan.Schema, Target: plan.Target{Namespace: "shop"}}
	if _, err := plan.Save(dir, p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "history", "index.json"), 0o700); err != nil { // nothing can replace it
		t.Fatal(err)
	}
	res, err := (&Engine{StateDir: dir}).Apply(t.Context(), "20260102-030405-abcdef", Input{Plan: p, Source: SourceApply})
	if err == nil || res == nil || res.Status != journal.StatusFinished || res.Revision != 1 {
		t.Fatalf("Apply() = %+v, %v; want finished as revision 1, with the index error", res, err)
	}
	if rev, err := history.Load(dir, 1); err != nil || rev.Run != res.Run {
		t.Errorf("history.Load(1) = %+v, %v; want the run's revision", rev, err)
	}
}
