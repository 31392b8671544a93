package compose_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// testModule is a Go module, shared by the tests, holding one composition
// package per case. TestMain creates and tidies it once.
var testModule string

// modulePackages are the compositions of testModule, by package directory.
var modulePackages = map[string]string{
	"good/infra.go": `package good

import (
	"errors"

	app "github.com/pynenc/piceli/app"
)

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("t")
	a.ConfigMap("settings", app.Data("greeting", ctx.Value("greeting")))
	return a.Composition(ctx)
}

// Fails shares the package so that both are built from one module.
func Fails(ctx *app.Context) (*app.Composition, error) {
	return nil, errors.New("no database configured")
}

func WrongSignature(ctx *app.Context) *app.Composition { return nil }

func unexported(ctx *app.Context) (*app.Composition, error) { return nil, nil }
`,
	"good/data.txt": "kept\n",
	"broken/infra.go": `package broken

import "github.com/pynenc/piceli/app"

func Build(ctx *app.Context) (*app.Composition, error) {
	var n int = "not a number"
	return nil, nil
}
`,
	"mainpkg/infra.go": `package main

import p "github.com/pynenc/piceli/app"

func Build(ctx *p.Context) (*p.Composition, error) {
	a := p.New("m")
	a.ConfigMap("from-main", p.Data("k", "v"))
	return a.Composition(ctx)
}
`,
	"withmain/infra.go": `package main

import "github.com/pynenc/piceli/app"

func Build(ctx *app.Context) (*app.Composition, error) { return nil, nil }

func main() {}
`,
	"empty/infra.go": `package empty

import "github.com/pynenc/piceli/app"

func Build(ctx *app.Context) (*app.Composition, error) { return app.New("e").Composition(ctx) }
`,
}

func TestMain(m *testing.M) {
	dir, err := makeModule()
	if err != nil {
		fmt.Fprintln(os.Stderr, "set up test module:", err)
		os.Exit(2)
	}
	testModule = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// makeModule writes testModule, requiring this checkout of piceli through
// a replace directive, and tidies it so later builds change nothing.
func makeModule() (string, error) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	dir, err := os.MkdirTemp("", "piceli-compose-test-")
	if err != nil {
		return "", err
	}
	files := map[string]string{"go.mod": fmt.Sprintf(
		"module example.com/t\n\ngo 1.26.0\n\nrequire github.com/pynenc/piceli v0.0.0\n\nreplace github.com/pynenc/piceli => %s\n", root)}
	for name, src := range modulePackages {
		files[name] = src
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	files["go.sum"] = string(sum)
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return "", err
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	tidy.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := tidy.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod tidy: %v\n%s", err, out)
	}
	return dir, nil
}
