package statedir

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSharedSplitsTheLayout is the shared and machine-local split, one
// row per kind of file a state directory holds.
func TestSharedSplitsTheLayout(t *testing.T) {
	tests := []struct {
		rel    string
		shared bool
	}{
		{"plans/0123abcd.json", true},
		{"keys/digest", true},
		{"runs/latest", true},
		{"runs/20261202-041500-abcdef/journal", true},
		{"runs/20261202-041500-abcdef/source", true},
		{"runs/20261202-041500-abcdef/stop", false},
		{"history/000001.json", true},
		{"history/index.json", true},
		{"secrets/db-password/000001.json", true},
		{"owner.json", true},
		{"deploys/20261202-041500-abcdef/journal", true},
		{"lock", false},
		{"lock.holder", false},
		{"state-sync.json", false},
		{"a-file-of-a-newer-piceli", true},
	}
	for _, tt := range tests {
		if got := Shared(tt.rel); got != tt.shared {
			t.Errorf("Shared(%q) = %v, want %v", tt.rel, got, tt.shared)
		}
	}
}

// layoutNames are the names a state directory's files and directories
// have: as a literal anywhere but here, one would be a second owner of
// the layout.
var layoutNames = map[string]bool{
	Plans: true, PlanFiles: true, "keys": true, "digest": true, Runs: true, "latest": true, History: true, Secrets: true,
	Owner: true, Deploys: true, Lock: true, LockOwner: true, Sync: true, RunJournal: true, RunSource: true, RunStop: true,
}

// distinct are layout paths no other code has a reason to spell.
var distinct = []string{DigestKey, LatestRun, Owner, LockOwner, Sync}

// TestNoStatePathLiteralOutsideThisPackage reads every non-test Go file of
// the module and fails on a state path spelt out: a layout name joined
// into a path, or a distinctive layout path or prefix in any string.
func TestNoStatePathLiteralOutsideThisPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "tools", "testdata", "statedir", ".git", "bin", ".piceli-sandbox":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		for _, hit := range literals(t, p) {
			t.Errorf("%s: state path %s spelt out: name it through internal/statedir", hit.pos, hit.lit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type hit struct {
	pos token.Position
	lit string
}

// literals returns the state path literals of the Go file p.
func literals(t *testing.T, p string) []hit {
	t.Helper()
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var hits []hit
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			return false // struct tags are JSON and TOML keys, not paths
		case *ast.CallExpr:
			if joins(n) {
				for _, a := range n.Args {
					if s, ok := stringLit(a); ok && layoutNames[s] {
						hits = append(hits, hit{fset.Position(a.Pos()), strconv.Quote(s)})
					}
				}
			}
		case *ast.BasicLit:
			if s, ok := stringLit(n); ok && distinctPath(s) {
				hits = append(hits, hit{fset.Position(n.Pos()), strconv.Quote(s)})
			}
		}
		return true
	})
	return hits
}

// joins reports whether call is filepath.Join or path.Join.
func joins(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Join" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "filepath" || pkg.Name == "path")
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// distinctPath reports whether s is a distinctive layout path or begins
// with a layout directory and a slash.
func distinctPath(s string) bool {
	for _, d := range distinct {
		if s == d {
			return true
		}
	}
	if strings.HasSuffix(s, envSuffix) || envDir.MatchString(s) {
		return true
	}
	for _, dir := range []string{Plans, Runs, History, Secrets, Deploys, "keys"} {
		if strings.HasPrefix(s, dir+"/") {
			return true
		}
	}
	return false
}

func TestEnvironmentIsBesideItsBase(t *testing.T) {
	for _, tt := range []struct{ base, env, want string }{
		{"/srv/app/.piceli-release", "prod", "/srv/app/.piceli-release.env-prod"},
		{"/srv/app/.piceli-release/", "staging", "/srv/app/.piceli-release.env-staging"},
	} {
		if got := Environment(tt.base, tt.env); got != tt.want {
			t.Errorf("Environment(%q, %q) = %q, want %q", tt.base, tt.env, got, tt.want)
		}
		if filepath.Dir(Environment(tt.base, tt.env)) != filepath.Dir(filepath.Clean(tt.base)) {
			t.Errorf("Environment(%q, %q) is not beside its base", tt.base, tt.env)
		}
	}
}

// envDir matches a string that ends as an environment's state directory
// does: the suffix and a DNS-1123 label.
var envDir = regexp.MustCompile(regexp.QuoteMeta(envSuffix) + `[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// An environment's state directory is spelt here alone: the literal
// check of TestNoStatePathLiteralOutsideThisPackage catches its suffix
// (but not a schema such as piceli.env-diff/v1).
func TestDistinctPathCatchesAnEnvironmentSuffix(t *testing.T) {
	for s, want := range map[string]bool{envSuffix + "prod": true, ".piceli-release" + envSuffix: true, "/srv/.piceli-release" + envSuffix + "staging-2": true,
		"prod": false, ".env": false, "piceli.env-diff/v1": false, "the piceli.env-diff/v1 document.": false} {
		if got := distinctPath(s); got != want {
			t.Errorf("distinctPath(%q) = %v, want %v", s, got, want)
		}
	}
}
