package compose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/pynenc/piceli/internal/golist"
)

// errNoGo says a Go composition needs a Go toolchain and what needs none.
var errNoGo = errors.New(`a Go toolchain is needed for Go compositions ("go" is not on PATH); YAML/JSON compositions need none`)

// findGo returns the go command on PATH.
func findGo() (string, error) {
	path, err := exec.LookPath("go")
	if err != nil {
		return "", errNoGo
	}
	return path, nil
}

// envVars are the go env settings that change what a build produces.
var envVars = []string{"GOVERSION", "GOOS", "GOARCH", "GOROOT", "GOFLAGS", "GOEXPERIMENT",
	"CGO_ENABLED", "CC", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOWORK", "GOMODCACHE"}

// goEnv returns the go env settings, as JSON, that enter the cache key.
func goEnv(ctx context.Context, gotool, dir string) ([]byte, error) {
	return runGo(ctx, gotool, dir, append([]string{"env", "-json"}, envVars...)...)
}

// listPackage is the part of `go list -json` output the loader uses.
type listPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Standard   bool
	Module     *listModule
	GoFiles    []string
	CgoFiles   []string
	CFiles     []string
	CXXFiles   []string
	HFiles     []string
	SFiles     []string
	SysoFiles  []string
	EmbedFiles []string
}

// listModule is a module in `go list -json` output.
type listModule struct {
	Path    string
	Version string
	Dir     string
	GoMod   string
	Replace *listModule
}

// listFields are the go list fields listPackage reads.
var listFields = []string{"ImportPath", "Name", "Dir", "Standard", "Module", "GoFiles", "CgoFiles", "CFiles", "CXXFiles", "HFiles", "SFiles", "SysoFiles", "EmbedFiles"}

// listDeps lists the package in dir and every package it depends on, in
// dependency order. What a failing go list printed comes back verbatim as
// a *BuildError.
func listDeps(ctx context.Context, gotool, dir string) ([]listPackage, error) {
	pkgs, err := golist.Deps[listPackage](ctx, dir, listFields, golist.Options{Go: gotool})
	if ge, ok := errors.AsType[*golist.Error](err); ok {
		return nil, &BuildError{Output: ge.Stderr, Err: ge.Err}
	}
	return pkgs, err
}

// packageIn returns the listed package whose directory is dir.
func packageIn(pkgs []listPackage, dir string) (*listPackage, error) {
	for i := range pkgs {
		if filepath.Clean(pkgs[i].Dir) == dir {
			return &pkgs[i], nil
		}
	}
	return nil, fmt.Errorf("go list did not report the package in %s", dir)
}

// runGo runs a go subcommand in dir and returns its standard output. A
// failure carries what go printed, verbatim, as a *BuildError.
func runGo(ctx context.Context, gotool, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, gotool, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &BuildError{Output: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}
