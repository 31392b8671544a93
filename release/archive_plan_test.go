package release

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/progress"
)

// The archive a run writes when it ends is built from the plan the run
// ran, which was loaded and checked once before it started, not read back
// from the state directory: that would load and check the whole plan a
// second time. So a run whose plan file goes away while it runs still
// finishes and archives that plan.
func TestARunArchivesThePlanItRan(t *testing.T) {
	path, _ := configMapRelease(t, 3)
	noop := appliedTwice(t, path)
	var stateDir string
	moved := false
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	events := func(ev progress.Event) {
		if ev.Kind == progress.RunStarted {
			file := filepath.Join(stateDir, "plans", strings.TrimPrefix(noop.Hash, "sha256:")+".json")
			moved = os.Rename(file, file+".away") == nil
		}
	}
	stateDir = r.StateDir()
	res, err := r.Apply(sandboxtest.Context(t, time.Minute), noop.Hash, RunOptions{Events: events})
	if err != nil {
		t.Fatalf("Apply() with its plan file moved away once it started: %v", err)
	}
	if !moved {
		t.Fatal("the plan file was not moved away when the run started")
	}
	data, err := r.Archive(t.Context(), ArchiveOptions{Run: res.Run})
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal(data, &a); err != nil || a.Plan != noop.Hash {
		t.Errorf("archive of run %s names plan %q (%v), want %s", res.Run, a.Plan, err, noop.Hash)
	}
}
