package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A release.toml larger than MaxFileSize is refused at once, naming the
// file, without being parsed; one at the limit is parsed.
func TestLoadRefusesAnOversizedFile(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "release.toml")
	padded := func(size int) string {
		return good + "#" + strings.Repeat("x", size-len(good)-2) + "\n"
	}
	if err := os.WriteFile(path, []byte(padded(MaxFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("Load() of a %d-byte spec = %v, want it parsed", MaxFileSize, err)
	}
	if err := os.WriteFile(path, []byte(padded(MaxFileSize+1)+strings.Repeat("#\n", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Load(path)
	var se *Error
	if !errors.As(err, &se) || se.File != path || !strings.Contains(se.Msg, "larger than 1 MiB") {
		t.Errorf("Load() of an oversized spec = %v, want an *Error naming %s and the limit", err, path)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Load() took %s to refuse an oversized spec", d)
	}
}
