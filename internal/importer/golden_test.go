package importer_test

import (
	"flag"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/")

// goldenSets are the sets whose generated files are kept as golden files;
// kube-prometheus is left out for size (its round trip is tested).
var goldenSets = []string{"shop", "builders", "crds", "microservices-demo", "guestbook-cassandra"}

// TestGeneratedFilesMatchGolden compares every generated file but go.mod
// and go.sum (which go mod tidy writes from the module graph) with
// testdata/golden/<set>/<file>.golden; -update rewrites them. Paths that
// differ from machine to machine read $TMP and $PICELI.
func TestGeneratedFilesMatchGolden(t *testing.T) {
	for _, set := range roundTripSets {
		if !slices.Contains(goldenSets, set.name) {
			continue
		}
		t.Run(set.name, func(t *testing.T) {
			is := importSet(t, set)
			if is.err != nil {
				t.Fatalf("import %s: %v", set.name, is.err)
			}
			dir := filepath.Join("testdata", "golden", set.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}
			var files []string
			for _, f := range is.res.Files {
				if f != "go.sum" && f != "go.mod" {
					files = append(files, f)
					checkGolden(t, filepath.Join(dir, f+".golden"), portable(t, readFile(t, filepath.Join(is.res.Dir, f))))
				}
			}
			checkNoExtraGolden(t, dir, files)
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("generated %s differs (-golden +generated):\n%s", path, diff)
	}
}

// checkNoExtraGolden fails on golden files of files import no longer
// writes.
func checkNoExtraGolden(t *testing.T, dir string, files []string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, strings.TrimSuffix(p, ".golden"))
			if !slices.Contains(files, filepath.ToSlash(rel)) {
				t.Errorf("golden file %s has no generated file (run go test -update)", p)
			}
		}
		return nil
	})
}

// portable replaces the paths of this machine.
func portable(t *testing.T, s string) string {
	return strings.NewReplacer(sharedDir(t), "$TMP", piceliSource(t), "$PICELI").Replace(s)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestGeneratedCodeIsGofmtAndVetClean is acceptance 3: every generated Go
// file is as gofmt writes it and go vet finds nothing in the module.
func TestGeneratedCodeIsGofmtAndVetClean(t *testing.T) {
	for _, set := range roundTripSets {
		t.Run(set.name, func(t *testing.T) {
			is := importSet(t, set)
			if is.err != nil {
				t.Fatalf("import %s: %v", set.name, is.err)
			}
			for _, f := range is.res.Files {
				if !strings.HasSuffix(f, ".go") {
					continue
				}
				src := readFile(t, filepath.Join(is.res.Dir, f))
				formatted, err := format.Source([]byte(src))
				if err != nil || string(formatted) != src {
					t.Errorf("%s/%s is not gofmt'd (%v)", set.name, f, err)
				}
			}
			cmd := exec.CommandContext(t.Context(), "go", "vet", "./...")
			cmd.Dir = is.res.Dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go vet in the %s module: %v\n%s", set.name, err, out)
			}
		})
	}
}

// TestBuildersAreCalledForTheCommonKinds is acceptance 3: the module
// imported from builder output calls the builders of Deployments,
// StatefulSets, DaemonSets, Services, ConfigMaps, Jobs, CronJobs and
// Secrets, in Build or in the function of a component.
func TestBuildersAreCalledForTheCommonKinds(t *testing.T) {
	is := importSet(t, roundTripSets[1])
	if is.err != nil {
		t.Fatal(is.err)
	}
	called := map[string]bool{}
	for _, name := range is.res.Files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(is.res.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "a" {
						called[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	for _, m := range []string{"Deployment", "StatefulSet", "DaemonSet", "Service", "ConfigMap", "Job", "CronJob", "Secret"} {
		if !called[m] {
			t.Errorf("the module never calls a.%s; it calls %v", m, called)
		}
	}
}
