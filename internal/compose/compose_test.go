package compose_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/spec"
)

// goSpec returns a spec whose composition is file:fn in testModule.
func goSpec(file, fn string) *spec.Spec {
	return &spec.Spec{
		Dir:     testModule,
		Target:  spec.Target{Namespace: "ns"},
		Release: spec.Release{Name: "t", Composition: spec.Composition{Kind: spec.CompositionGo, File: filepath.Join(testModule, file), Func: fn}},
		Values:  map[string]string{"greeting": "hi"},
	}
}

func TestLoadGoCompilesOnceThenHitsTheCache(t *testing.T) {
	cache := t.TempDir()
	stale := staleCacheEntry(t, cache)
	s := goSpec("good/infra.go", "Build")
	var log bytes.Buffer
	start := time.Now()
	res, err := compose.Load(context.Background(), s, compose.Options{Log: &log, CacheDir: cache})
	cold := time.Since(start)
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if got, want := log.String(), "compiling good/infra.go (cache miss)\n"; got != want {
		t.Errorf("Load() log = %q, want %q", got, want)
	}
	checkGood(t, res)
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a compiled composition unused for %v survived a build (stat: %v)", compose.CacheUnusedFor, err)
	}

	log.Reset()
	start = time.Now()
	res, err = compose.Load(context.Background(), s, compose.Options{Log: &log, CacheDir: cache})
	warm := time.Since(start)
	if err != nil {
		t.Fatalf("second Load() error: %v", err)
	}
	if got, want := log.String(), "using compiled good/infra.go (cache hit)\n"; got != want {
		t.Errorf("second Load() log = %q, want %q", got, want)
	}
	checkGood(t, res)
	if warm >= cold {
		t.Errorf("cache hit took %v, not less than the cold load's %v", warm, cold)
	}
	t.Logf("cold load %v, warm load %v", cold, warm)
}

// staleCacheEntry stores in cache a compiled composition nobody used for
// longer than the cache keeps one, and returns its directory.
func staleCacheEntry(t *testing.T, cache string) string {
	t.Helper()
	dir := filepath.Join(cache, "compositions", strings.Repeat("0", 64))
	bin := filepath.Join(dir, "composition")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-compose.CacheUnusedFor - time.Hour)
	if err := os.Chtimes(bin, long, long); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkGood checks the objects of good/infra.go:Build.
func checkGood(t *testing.T, res *compose.Result) {
	t.Helper()
	if len(res.Objects) != 1 {
		t.Fatalf("Load() returned %d objects, want 1", len(res.Objects))
	}
	obj := res.Objects[0].Object
	got := []string{obj.GetAPIVersion(), obj.GetKind(), obj.GetName()}
	if diff := cmp.Diff([]string{"v1", "ConfigMap", "settings"}, got); diff != "" {
		t.Errorf("Load() object mismatch (-want +got):\n%s", diff)
	}
	if v, _, _ := unstructuredString(obj.Object, "data", "greeting"); v != "hi" {
		t.Errorf("Load() data.greeting = %q, want %q from the values", v, "hi")
	}
}

func unstructuredString(m map[string]any, path ...string) (string, bool, error) {
	for _, p := range path[:len(path)-1] {
		m, _ = m[p].(map[string]any)
	}
	v, ok := m[path[len(path)-1]].(string)
	return v, ok, nil
}

func TestLoadGoLeavesTheUserTreeUntouched(t *testing.T) {
	before := listTree(t, testModule)
	for _, c := range [][2]string{{"good/infra.go", "Build"}, {"mainpkg/infra.go", "Build"}, {"broken/infra.go", "Build"}} {
		_, _ = compose.Load(context.Background(), goSpec(c[0], c[1]), compose.Options{CacheDir: t.TempDir()})
	}
	if diff := cmp.Diff(before, listTree(t, testModule)); diff != "" {
		t.Errorf("Load() changed the user's tree (-before +after):\n%s", diff)
	}
}

// listTree returns every path under dir with its size and modification time.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %v %d", p, info.ModTime(), info.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadGoPackageMain(t *testing.T) {
	res, err := compose.Load(context.Background(), goSpec("mainpkg/infra.go", "Build"), compose.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if got := res.Objects[0].Object.GetName(); got != "from-main" {
		t.Errorf("Load() object name = %q, want from-main", got)
	}
}

func TestLoadGoCompileErrorIsVerbatim(t *testing.T) {
	_, err := compose.Load(context.Background(), goSpec("broken/infra.go", "Build"), compose.Options{CacheDir: t.TempDir()})
	var be *compose.BuildError
	if !errors.As(err, &be) {
		t.Fatalf("Load() error = %v, want a *compose.BuildError", err)
	}
	for _, want := range []string{"infra.go:6:", `cannot use "not a number"`, "declared and not used: n"} {
		if !strings.Contains(be.Output, want) {
			t.Errorf("BuildError.Output =\n%s\nwant it to contain %q", be.Output, want)
		}
	}
	if !strings.HasPrefix(err.Error(), "load composition broken/infra.go:Build: go build failed:\n") {
		t.Errorf("Load() error = %v, want it to start with the composition's name", err)
	}
}

func TestLoadGoErrors(t *testing.T) {
	tests := []struct {
		name     string
		file, fn string
		want     string
	}{
		{"a function returning an error reports its message", "good/infra.go", "Fails",
			"load composition good/infra.go:Fails: no database configured"},
		{"a wrong signature names the line and the expected signature", "good/infra.go", "WrongSignature",
			"load composition good/infra.go:WrongSignature: infra.go:20: WrongSignature has signature func(ctx *app.Context) *app.Composition, want func WrongSignature(ctx *app.Context) (*app.Composition, error)"},
		{"a missing function is named", "good/infra.go", "Nope",
			"load composition good/infra.go:Nope: infra.go declares no function Nope"},
		{"a missing file is named", "good/nope.go", "Build",
			"load composition good/nope.go:Build: file " + filepath.Join(testModule, "good/nope.go") + " does not exist"},
		{"an unexported function outside package main is refused", "good/infra.go", "unexported",
			"unexported must be exported to be called from package example.com/t/good"},
		{"package main with its own func main is refused", "withmain/infra.go", "Build",
			"infra.go is in a package main that declares func main"},
		{"a composition without objects is an error", "empty/infra.go", "Build",
			"load composition empty/infra.go:Build: the composition declares no objects"},
	}
	cache := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compose.Load(context.Background(), goSpec(tt.file, tt.fn), compose.Options{CacheDir: cache})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadGoWithoutToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := compose.Load(context.Background(), goSpec("good/infra.go", "Build"), compose.Options{CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "a Go toolchain is needed for Go compositions") {
		t.Errorf("Load() error = %v, want it to ask for a Go toolchain", err)
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "manifests", "a.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: \"1\"\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n")
	s := &spec.Spec{Dir: dir, Release: spec.Release{Composition: spec.Composition{Kind: spec.CompositionFiles, File: filepath.Join(dir, "manifests")}}}
	res, err := compose.Load(context.Background(), s, compose.Options{})
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Origin+" "+o.Object.GetKind()+"/"+o.Object.GetName())
	}
	want := []string{"manifests/a.yaml:1 ConfigMap/a", "manifests/a.yaml:8 Deployment/web"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load() objects mismatch (-want +got):\n%s", diff)
	}
	if r, _, _ := nestedInt(res.Objects[1].Object.Object, "spec", "replicas"); r != 2 {
		t.Errorf("replicas = %v, want int64 2", r)
	}
}

func nestedInt(m map[string]any, path ...string) (int64, bool, error) {
	for _, p := range path[:len(path)-1] {
		m, _ = m[p].(map[string]any)
	}
	v, ok := m[path[len(path)-1]].(int64)
	return v, ok, nil
}

func TestLoadFilesErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "noname.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n")
	write(t, filepath.Join(dir, "empty.yaml"), "# nothing\n")
	tests := []struct{ name, file, want string }{
		{"an object without a name names its origin", "noname.yaml", "noname.yaml:1: ConfigMap: metadata.name is required"},
		{"a file without objects is an error", "empty.yaml", "load composition empty.yaml: the composition declares no objects"},
		{"a missing file is named", "missing.yaml", "missing.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &spec.Spec{Dir: dir, Release: spec.Release{Composition: spec.Composition{Kind: spec.CompositionFiles, File: filepath.Join(dir, tt.file)}}}
			_, err := compose.Load(context.Background(), s, compose.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
