package release_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// libraryProgram is the complete program of docs/library.md: its first Go
// block that declares package main.
func libraryProgram(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(moduleDir, "..", "docs", "library.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.HasPrefix(m[1], "package main\n") {
			return m[1]
		}
	}
	t.Fatal("docs/library.md has no Go block declaring package main")
	return ""
}

// buildLibraryProgram compiles the program inside the module (in a
// directory the ./... patterns ignore) and returns the binary.
func buildLibraryProgram(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(moduleDir, "_librarydoc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(libraryProgram(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "library-program")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the program of docs/library.md does not compile: %v\n%s", err, out)
	}
	return bin
}

// TestLibraryDocProgram is acceptance 5 of issue 29: the complete program
// docs/library.md shows compiles against the public API and, run on a
// project of the sandbox, plans, applies the plan by its hash with
// progress events, and reads the history it left.
func TestLibraryDocProgram(t *testing.T) {
	bin := buildLibraryProgram(t)
	sb := sandboxtest.Cluster(t)
	dir, cleanup, err := exampleProject(sb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	cmd := exec.CommandContext(sandboxtest.Context(t, 2*time.Minute), bin, filepath.Join(dir, "release.toml"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the program of docs/library.md failed: %v\n%s", err, out)
	}
	for _, want := range []string{"plan: 2 to create", "wave 2/2 ready", "run finished: revision 1", "revision 1: apply, 2 objects"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the program printed:\n%s\nwant it to contain %q", out, want)
		}
	}
}
