package state

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/journal"
)

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

func TestPackIsDeterministicAndLeavesMachineFilesOut(t *testing.T) {
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"plans/abc.json": "{}", "runs/r1/journal": "j", "runs/r1/stop": "stop", "lock": "", "lock.holder": "h",
		"state-sync.json": "{}", "secrets/db/000001.json": "v", "history/index.json.tmp123": "partial",
	} {
		write(t, dir, rel, data)
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"plans/abc.json", "runs/r1/journal", "secrets/db/000001.json"}, paths(files)); diff != "" {
		t.Errorf("Files() paths (-want +got):\n%s", diff)
	}
	a, _ := Pack(files)
	b, _ := Pack(files)
	if Digest(a) != Digest(b) {
		t.Errorf("Pack twice gave digests %s and %s, want one", Digest(a), Digest(b))
	}
	back, err := Unpack(a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, back); diff != "" {
		t.Errorf("Unpack(Pack(files)) (-want +got):\n%s", diff)
	}
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "runs/r1/journal", "intent1 outcome1 intent2") // appended here since the push
	write(t, dir, "history/index.json", "stale")
	write(t, dir, "plans/local-only.json", "made here, not pushed")
	write(t, dir, "plans/old.json", "removed elsewhere")
	write(t, dir, "runs/latest", "20261201-120000-bbbbbb\n") // started here, killed before its first push
	write(t, dir, "runs/older", "20261201-110000-aaaaaa\n")
	snap := []File{
		{Path: "runs/latest", Data: []byte("20261201-110000-aaaaaa\n")},
		{Path: "runs/older", Data: []byte("20261201-120000-bbbbbb\n")}, // not a pointer: the snapshot wins
		{Path: "runs/r1/journal", Data: []byte("intent1 outcome1")},
		{Path: "history/index.json", Data: []byte("fresh")},
		{Path: "secrets/db/000001.json", Data: []byte("v1")},
	}
	if _, err := Merge(dir, snap, []string{"plans/old.json"}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"runs/r1/journal":        "intent1 outcome1 intent2",
		"history/index.json":     "fresh",
		"secrets/db/000001.json": "v1",
		"plans/local-only.json":  "made here, not pushed",
		"plans/old.json":         "<missing>",
		"runs/latest":            "20261201-120000-bbbbbb\n",
		"runs/older":             "20261201-120000-bbbbbb\n",
	} {
		if got := read(t, dir, rel); got != want {
			t.Errorf("after Merge %s = %q, want %q", rel, got, want)
		}
	}
	info, err := os.Stat(filepath.Join(dir, "secrets/db/000001.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("merged secret version mode = %v (%v), want 0600", info.Mode(), err)
	}
}

// journalStarted returns the bytes of a journal whose run started at at.
func journalStarted(t *testing.T, run string, at time.Time) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal")
	w, err := journal.Create(path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(journal.Record{Type: journal.RunStarted, Time: at, Run: run, Plan: "sha256:00"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The cache's latest-run pointer survives a pull only while it names a
// run that started after the snapshot's latest run, by the start time its
// journal records (to the nanosecond, so two runs of the same second are
// told apart), whether or not the snapshot holds it; then the greater id.
func TestMergeLatestRunPointer(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		local, shared string
		localAt       time.Time // the local run's start
		sharedAt      time.Time // the snapshot's run's start
		localPushed   bool      // the snapshot holds the local run too
		noJournals    bool      // neither journal can be read: the ids' times decide
		want          string
	}{
		{name: "an unpushed run started later, in the same second and sorting first, stays latest",
			local: "20261201-120000-000001", shared: "20261201-120000-ffffff", localAt: t0.Add(900 * time.Millisecond), sharedAt: t0.Add(100 * time.Millisecond), want: "20261201-120000-000001"},
		{name: "an unpushed later run stays latest", local: "20261201-130000-aaaaaa", shared: "20261201-120000-bbbbbb",
			localAt: t0.Add(time.Hour), sharedAt: t0, want: "20261201-130000-aaaaaa"},
		{name: "an unpushed run killed before another machine's later run gives way to it",
			local: "20261201-120000-ffffff", shared: "20261201-120005-000001", localAt: t0, sharedAt: t0.Add(5 * time.Second), want: "20261201-120005-000001"},
		{name: "a pushed run another machine followed gives way", local: "20261201-120000-aaaaaa", shared: "20261201-130000-bbbbbb",
			localAt: t0, sharedAt: t0.Add(time.Hour), localPushed: true, want: "20261201-130000-bbbbbb"},
		{name: "without journals the time and then the id decide", local: "20261201-120000-000001", shared: "20261201-120000-ffffff",
			noJournals: true, want: "20261201-120000-ffffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "runs/latest", tt.local+"\n")
			localJ, sharedJ := journalStarted(t, tt.local, tt.localAt), journalStarted(t, tt.shared, tt.sharedAt)
			if tt.noJournals {
				localJ, sharedJ = []byte("damaged"), []byte("damaged")
			}
			write(t, dir, "runs/"+tt.local+"/journal", string(localJ))
			snap := []File{{Path: "runs/latest", Data: []byte(tt.shared + "\n")}, {Path: "runs/" + tt.shared + "/journal", Data: sharedJ}}
			if tt.localPushed {
				snap = append(snap, File{Path: "runs/" + tt.local + "/journal", Data: localJ})
			}
			if _, err := Merge(dir, snap, nil); err != nil {
				t.Fatal(err)
			}
			if got := read(t, dir, "runs/latest"); got != tt.want+"\n" {
				t.Errorf("runs/latest after Merge = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnpackRefusesEscapingPaths(t *testing.T) {
	data, err := Pack([]File{{Path: "../outside", Data: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(data); err == nil {
		t.Errorf("Unpack(entry ../outside) = nil error, want a refusal")
	}
}
