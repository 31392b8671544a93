package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// SourceDir is the Piceli checkout this binary was built from, set with
// -ldflags "-X github.com/pynenc/piceli/internal/cli.SourceDir=DIR" by the
// Makefile. init points new projects at it.
var SourceDir = ""

// sourceDir returns SourceDir, or else the checkout this file was compiled
// from when the build kept absolute source paths (go run, go test), or ""
// when neither names a Piceli module.
func sourceDir() string {
	if isPiceliModule(SourceDir) {
		return SourceDir
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	if isPiceliModule(dir) {
		return dir
	}
	return ""
}

func isPiceliModule(dir string) bool {
	if dir == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.HasPrefix(string(data), "module github.com/pynenc/piceli\n")
}
