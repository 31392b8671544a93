package crdgen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/crdgen"
)

// testModulePath is the module the generated packages are compiled in.
const testModulePath = "example.com/crdtest"

// repoRoot is the Piceli checkout the tests run in.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// testModule writes a Go module that reaches this checkout (Piceli's own
// requirements, so nothing is downloaded, and a replace) holding out's
// packages under crds/, plus files; it returns its directory.
func testModule(t *testing.T, out *crdgen.Output, files map[string]string) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := strings.Replace(string(gomod), "module github.com/pynenc/piceli\n", "module "+testModulePath+"\n", 1)
	mod += "\nrequire github.com/pynenc/piceli v0.0.0\n\nreplace github.com/pynenc/piceli => " + root + "\n"
	all := map[string][]byte{"go.mod": []byte(mod), "go.sum": sum}
	for p, data := range out.Files {
		all["crds/"+p] = data
	}
	for p, body := range files {
		all[p] = []byte(body)
	}
	writeTree(t, dir, all)
	return dir
}

// goCmd runs the go tool in dir and returns its combined output.
func goCmd(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	return string(b), err
}
