package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/object"
)

// TestSecurityRenderWriteDirStaysInItsDirectory is the second wall against
// hole 2 of issue 28: WriteDir is given objects whose names climb out of
// the output directory or are longer than a file name (names checks
// refuse these first), and an output directory holding a symlink, named
// as a rendered file, that points outside. Every file lands inside the
// directory and the file outside is untouched.
func TestSecurityRenderWriteDirStaysInItsDirectory(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "out"), filepath.Join(base, "victim.yaml")
	if err := os.WriteFile(outside, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	escape := "x/" + strings.Repeat("../", 30) + strings.TrimPrefix(base, "/") + "/victim"
	objs := Manifests([]object.Declared{
		obj("v1", "ConfigMap", "demo", escape),
		obj("v1", "ConfigMap", "demo", strings.Repeat("long-", 60)),
		obj("v1", "ConfigMap", "..", ".."),
	})
	names, err := WriteDir(dir, objs, YAML)
	if err != nil {
		t.Fatalf("WriteDir() = %v", err)
	}
	for _, n := range names {
		if strings.ContainsAny(n, `/\`) || len(n) > 255 {
			t.Errorf("WriteDir() named a file %q", n)
		}
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s is not in the output directory: %v", n, err)
		}
	}
	if got, _ := os.ReadFile(outside); string(got) != "original" {
		t.Fatalf("victim.yaml outside the output directory now holds %q", got)
	}

	os.Remove(filepath.Join(dir, names[0]))
	if err := os.Symlink(outside, filepath.Join(dir, names[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDir(dir, objs, YAML); err == nil {
		t.Error("WriteDir() through a symlink out of the directory = nil, want an error")
	}
	if got, _ := os.ReadFile(outside); string(got) != "original" {
		t.Errorf("victim.yaml, reached through a symlink in the output directory, now holds %q", got)
	}
}
