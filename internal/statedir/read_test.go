package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/inputfile"
)

// A state directory's files are read with a bound: a file swapped for a
// FIFO, a symlink or a file over MaxFile is refused at once, naming it,
// and a missing one is fs.ErrNotExist as before.
func TestReadFileRefusesWhatPiceliNeverWrites(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.json")
	os.WriteFile(plain, []byte(`{}`), 0o600)
	if data, err := ReadFile(plain); err != nil || string(data) != `{}` {
		t.Fatalf("ReadFile(a plain file) = %q, %v", data, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(a missing file) = %v, want fs.ErrNotExist", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(plain, link)
	huge := filepath.Join(dir, "huge")
	f, _ := os.Create(huge)
	f.Truncate(MaxFile + 1) // sparse: nothing is written
	f.Close()
	for name, want := range map[string]error{fifo: inputfile.ErrNotRegular, link: inputfile.ErrNotRegular, huge: inputfile.ErrTooLarge} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(name); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, want) {
				t.Errorf("ReadFile(%s) = %v, want %v", filepath.Base(name), err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still reads after 10 s", filepath.Base(name))
		}
	}
}
