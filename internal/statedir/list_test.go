package statedir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fill makes dir hold, by name, a directory for names ending in "/", a
// symlink to the next entry for names starting with "@", a FIFO for names
// starting with "|", and an empty file otherwise.
func fill(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, strings.Trim(n, "/@|"))
		var err error
		switch {
		case strings.HasSuffix(n, "/"):
			err = os.Mkdir(p, 0o700)
		case strings.HasPrefix(n, "@"):
			err = os.Symlink(filepath.Join(dir, "target"), p)
		case strings.HasPrefix(n, "|"):
			err = syscall.Mkfifo(p, 0o600)
		default:
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestList(t *testing.T) {
	isJSON := func(name string) bool { return strings.HasSuffix(name, ".json") }
	tests := []struct {
		name    string
		entries []string
		want    Entries
		keep    func(string) bool
		list    []string
	}{
		{"directories sorted, no file, no hidden one", []string{"b/", "a/", "latest", ".removed-c/"}, Dirs, nil, []string{"a", "b"}},
		{"a symlink to a directory is no directory", []string{"target/", "@linked"}, Dirs, nil, []string{"target"}},
		{"regular files that keep accepts", []string{"2.json", "1.json", "index", "d.json/"}, Files, isJSON, []string{"1.json", "2.json"}},
		{"a symlink to a file is no file", []string{"target", "@1.json"}, Files, isJSON, nil},
		{"a FIFO is no file", []string{"|1.json", "2.json"}, Files, isJSON, []string{"2.json"}},
		{"an empty directory lists nothing", nil, Files, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, tt.entries...)
			got, err := List(dir, tt.want, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.list, got); diff != "" {
				t.Errorf("List(%v) (-want +got):\n%s", tt.entries, diff)
			}
		})
	}
}

func TestListOfAMissingDirectoryIsEmpty(t *testing.T) {
	got, err := List(filepath.Join(t.TempDir(), "runs"), Dirs, nil)
	if err != nil || got != nil {
		t.Errorf("List(missing) = %v, %v; want nothing and no error", got, err)
	}
}

// A directory filled past the bound is refused, naming it, even when no
// entry of it would be listed; one at the bound is read. (The bound is
// lowered from MaxEntries, and so is the batch, so several batches are read.)
func TestListRefusesAnOverfullDirectory(t *testing.T) {
	defer func(m, b int) { maxEntries, readBatch = m, b }(maxEntries, readBatch)
	maxEntries, readBatch = 5, 2
	dir := t.TempDir()
	fill(t, dir, "a", "b", "c", "d", "e/")
	if got, err := List(dir, Dirs, nil); err != nil || len(got) != 1 {
		t.Fatalf("List(5 entries, bound 5) = %v, %v; want [e]", got, err)
	}
	fill(t, dir, "f")
	got, err := List(dir, Dirs, nil)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "more than 5 entries") {
		t.Errorf("List(6 entries, bound 5) = %v, %v; want an error naming the directory", got, err)
	}
}
