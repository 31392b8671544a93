package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/journal"
)

// startRun creates run as the engine does, with a journal that holds its
// run-started record, and makes it the latest run.
func startRun(t *testing.T, dir, run string) {
	t.Helper()
	if err := createRun(dir, run, SourceApply); err != nil {
		t.Fatal(err)
	}
	w, err := journal.Create(JournalPath(dir, run), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(journal.Record{Type: journal.RunStarted, Run: run, Plan: "sha256:abc"}); err != nil {
		t.Fatal(err)
	}
}

func TestRuns(t *testing.T) {
	dir := t.TempDir()
	if got, err := Runs(dir); got != nil || err != nil {
		t.Fatalf("Runs(no runs) = %v, %v; want none", got, err)
	}
	for _, run := range []string{"20260102-030405-bbbbbb", "20260101-000000-aaaaaa", "20260102-030405-aaaaaa"} {
		startRun(t, dir, run)
	}
	os.Mkdir(filepath.Join(runsDir(dir), tombstonePrefix+"20250101-000000-cccccc"), 0o700)
	want := []string{"20260101-000000-aaaaaa", "20260102-030405-aaaaaa", "20260102-030405-bbbbbb"}
	if got, err := Runs(dir); err != nil || !cmp.Equal(want, got) {
		t.Errorf("Runs() = %v, %v; want %v (oldest first, no latest file, no tombstone)", got, err, want)
	}
}

func TestRemoveRun(t *testing.T) {
	const old, latest = "20260101-000000-aaaaaa", "20260102-000000-bbbbbb"
	tests := []struct {
		name     string
		run      string
		wantErr  bool
		wantRuns []string
	}{
		{"an earlier run goes entirely", old, false, []string{latest}},
		{"the latest run, which resume continues, is refused and left whole", latest, true, []string{old, latest}},
		{"a run that is not there is no error", "20250101-000000-cccccc", false, []string{old, latest}},
		{"a name outside the runs directory is refused", "../plans", true, []string{old, latest}},
		{"the latest-run file is not a run", "latest", true, []string{old, latest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			startRun(t, dir, old)
			startRun(t, dir, latest)
			os.Mkdir(filepath.Join(dir, "plans"), 0o700)
			err := RemoveRun(dir, tt.run)
			if (err != nil) != tt.wantErr {
				t.Fatalf("RemoveRun(%q) error = %v, want error %v", tt.run, err, tt.wantErr)
			}
			if got, _ := Runs(dir); !cmp.Equal(tt.wantRuns, got) {
				t.Errorf("Runs() after RemoveRun(%q) = %v, want %v", tt.run, got, tt.wantRuns)
			}
			for _, run := range tt.wantRuns {
				if _, _, err := Inspect(dir, run); err != nil {
					t.Errorf("Inspect(%s) after RemoveRun(%q) error = %v, want its journal intact", run, tt.run, err)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(runsDir(dir), ".*")); len(left) > 0 {
				t.Errorf("runs/ holds %q after RemoveRun, want no tombstone", left)
			}
			if _, err := os.Stat(filepath.Join(dir, "plans")); err != nil {
				t.Errorf("plans/ after RemoveRun(%q): %v", tt.run, err)
			}
		})
	}
}

func TestFinishRemovalsDeletesWhatACrashLeft(t *testing.T) {
	dir := t.TempDir()
	const crashed, live = "20260101-000000-aaaaaa", "20260102-000000-bbbbbb"
	startRun(t, dir, crashed)
	startRun(t, dir, live)
	// A crash right after RemoveRun's rename leaves the whole run, journal
	// included, under its tombstone name.
	if err := os.Rename(RunDir(dir, crashed), filepath.Join(runsDir(dir), tombstonePrefix+crashed)); err != nil {
		t.Fatal(err)
	}
	if got, _ := Runs(dir); !cmp.Equal([]string{live}, got) {
		t.Errorf("Runs() with a tombstone = %v, want only %s", got, live)
	}
	got, err := FinishRemovals(dir)
	if err != nil || !cmp.Equal([]string{crashed}, got) {
		t.Errorf("FinishRemovals() = %v, %v; want [%s]", got, err, crashed)
	}
	if left, _ := filepath.Glob(filepath.Join(runsDir(dir), ".*")); len(left) > 0 {
		t.Errorf("runs/ holds %q after FinishRemovals, want no tombstone", left)
	}
	if _, _, err := Inspect(dir, live); err != nil {
		t.Errorf("Inspect(%s) after FinishRemovals error = %v, want it untouched", live, err)
	}
}

func TestResumableStatus(t *testing.T) {
	tests := []struct {
		name   string
		status journal.RunStatus
		want   bool
	}{
		{"a running run (live or interrupted) can be resumed", journal.StatusRunning, true},
		{"a stopped run can be resumed", journal.StatusStopped, true},
		{"a failed run can be resumed", journal.StatusFailed, true},
		{"a finished run cannot", journal.StatusFinished, false},
		{"a compensated run cannot", journal.StatusCompensated, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Resumable(journal.State{Status: tt.status}); got != tt.want {
				t.Errorf("Resumable(%s) = %v, want %v", tt.status, got, tt.want)
			}
			_, err := resumable([]journal.Record{{Seq: 1, Type: journal.RunStarted, Plan: "sha256:abc"}, {Seq: 2, Type: terminal[tt.status]}}, "sha256:abc")
			if (err == nil) != tt.want {
				t.Errorf("resumable(a journal ending %s) error = %v, want resumable %v", tt.status, err, tt.want)
			}
		})
	}
}

// terminal is a record that leaves a run in each status.
var terminal = map[journal.RunStatus]journal.Type{
	journal.StatusRunning: journal.WaveReady, journal.StatusStopped: journal.RunStopped, journal.StatusFailed: journal.RunFailed,
	journal.StatusFinished: journal.RunFinished, journal.StatusCompensated: journal.Compensated,
}
