package state

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// The cache's latest-run pointer survives a pull while it names a run the
// snapshot does not hold, even one started in the same second as the
// snapshot's (its random suffix may sort first); a run the snapshot holds
// gives way to a later one.
func TestMergeLatestRunPointer(t *testing.T) {
	tests := []struct {
		name, local, shared string
		sharedHoldsLocal    bool
		want                string
	}{
		{"an unpushed run of the same second, sorting first", "20261201-120000-000001", "20261201-120000-ffffff", false, "20261201-120000-000001"},
		{"an unpushed later run", "20261201-130000-aaaaaa", "20261201-120000-bbbbbb", false, "20261201-130000-aaaaaa"},
		{"a pushed run another machine followed", "20261201-120000-aaaaaa", "20261201-130000-bbbbbb", true, "20261201-130000-bbbbbb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "runs/latest", tt.local+"\n")
			snap := []File{{Path: "runs/latest", Data: []byte(tt.shared + "\n")}, {Path: "runs/" + tt.shared + "/journal", Data: []byte("j")}}
			if tt.sharedHoldsLocal {
				snap = append(snap, File{Path: "runs/" + tt.local + "/journal", Data: []byte("j")})
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
