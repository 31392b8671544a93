package artifact

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/golist"
)

// goTool is the Go toolchain that compiles an image's binary: the `go` on
// PATH, as Piceli's composition loader uses, run offline (GOPROXY=off,
// GOTOOLCHAIN=local) for one platform with cgo off.
type goTool struct {
	path     string
	platform string // "linux/amd64"
}

func findGo(platform string) (*goTool, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("find the Go toolchain: %w; an image with go = ... needs `go` on PATH", err)
	}
	return &goTool{path: p, platform: platform}, nil
}

// env is the environment of every go command: the caller's, with every
// setting that changes the output fixed.
func (g *goTool) env() []string {
	goos, goarch, _ := strings.Cut(g.platform, "/")
	fixed := map[string]string{
		"CGO_ENABLED": "0", "GOOS": goos, "GOARCH": goarch, "GOFLAGS": "", "GOTOOLCHAIN": "local",
		"GOPROXY": "off", "GOWORK": "off", "GOEXPERIMENT": "", "GOAMD64": "v1", "GOARM64": "v8.0",
		"GOARM": "7", "GO386": "sse2",
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !isFixed(fixed, k) {
			env = append(env, kv)
		}
	}
	for k, v := range fixed {
		env = append(env, k+"="+v)
	}
	return env
}

func isFixed(fixed map[string]string, k string) bool { _, ok := fixed[k]; return ok }

// run runs go with args in dir and returns its standard output; a failure
// carries what go printed on standard error.
func (g *goTool) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir, cmd.Env = dir, g.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %s (in %s): %s", args[0], dir, msg)
	}
	return out, nil
}

// version is the toolchain's version, such as "go1.26.8".
func (g *goTool) version(ctx context.Context) (string, error) {
	out, err := g.run(ctx, os.TempDir(), "env", "GOVERSION")
	return strings.TrimSpace(string(out)), err
}

type goModule struct {
	Path    string
	Version string
	Sum     string
	Dir     string
	GoMod   string
	Main    bool
	Replace *goModule
}

type goPackage struct {
	ImportPath string
	Dir        string
	Name       string
	Standard   bool
	Module     *goModule
	GoFiles    []string
	EmbedFiles []string
	SFiles     []string
	SysoFiles  []string
	Error      *struct{ Err string }
}

// goPackageFields are the go list fields goPackage reads.
var goPackageFields = []string{"ImportPath", "Dir", "Name", "Standard", "Module", "GoFiles", "EmbedFiles", "SFiles", "SysoFiles", "Error"}

// deps lists the package in dir and every package it depends on.
func (g *goTool) deps(ctx context.Context, dir string) ([]goPackage, error) {
	pkgs, err := golist.Deps[goPackage](ctx, dir, goPackageFields, golist.Options{Go: g.path, Env: g.env()})
	if err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		if p.Error != nil {
			return nil, fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)
		}
	}
	if len(pkgs) == 0 || pkgs[len(pkgs)-1].Name != "main" {
		return nil, fmt.Errorf("%s is not a main package", dir)
	}
	return pkgs, nil
}

// addGoInputs pins what compiling the main package in dir reads: the files
// of every package of a module on disk (the main module, or one replaced
// by a directory) with its go.mod and go.sum, and every other module by
// its go.sum hash. The standard library is pinned by the Go version.
func (s *inputSet) addGoInputs(ctx context.Context, g *goTool, dir string) error {
	pkgs, err := g.deps(ctx, dir)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		if p.Standard {
			continue
		}
		if err := s.addGoPackage(p); err != nil {
			return err
		}
	}
	return nil
}

func (s *inputSet) addGoPackage(p goPackage) error {
	m := p.Module
	if m == nil {
		return fmt.Errorf("package %s is not in a module; build Go images from a module with a go.mod", p.ImportPath)
	}
	if m.Replace != nil {
		m = m.Replace
	}
	if m.Version != "" {
		s.add(Input{Kind: InputModule, Name: m.Path + "@" + m.Version, Digest: m.Sum})
		return nil
	}
	for _, group := range [][]string{p.GoFiles, p.EmbedFiles, p.SFiles, p.SysoFiles} {
		for _, f := range group {
			if err := s.addFile(filepath.Join(p.Dir, f)); err != nil {
				return err
			}
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		path := filepath.Join(m.Dir, f)
		if _, err := os.Stat(path); err == nil {
			if err := s.addFile(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// build compiles the main package in dir into out, static and reproducible:
// -trimpath, no VCS stamp, no build id, symbols stripped.
func (g *goTool) build(ctx context.Context, dir, out string) error {
	_, err := g.run(ctx, dir, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", out, ".")
	return err
}
