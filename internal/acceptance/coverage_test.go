package acceptance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/faultproxy"
)

// engineFailpoints reads the engine's source and returns the failpoint
// every call of its failpoint's hit method names, by value: what the code
// can really kill at, whatever the exported lists say.
func engineFailpoints(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(repoRoot(), "internal", "apply")
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	var hits []string // constant names or literals
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "hit" && len(n.Args) == 2 {
					hits = append(hits, exprText(t, fset, f, n.Args[1]))
				}
			}
			return true
		})
	}
	var out []string
	for _, h := range hits {
		v, ok := consts[h]
		if !ok {
			v, ok = unquoted(h)
		}
		if !ok {
			t.Fatalf("a failpoint hit in internal/apply names %s, which is neither a string constant nor a literal", h)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no failpoint hits in %s: the suite's reader of the engine source is broken", dir)
	}
	slices.Sort(out)
	return out
}

func exprText(t *testing.T, fset *token.FileSet, file string, e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	}
	t.Fatalf("%s: a failpoint hit names %T, not a constant", fset.Position(e.Pos()), e)
	return ""
}

func unquoted(s string) (string, bool) {
	v, err := strconv.Unquote(s)
	return v, err == nil
}

// Every failpoint the engine's code hits is in apply.Failpoints or
// apply.CompensationFailpoints, and every failpoint and every proxy fault
// kind has a scenario that covers it: a new one without a scenario fails
// here, in the fast half as in the full suite.
func TestScenariosCoverEveryFailpointAndFaultKind(t *testing.T) {
	listed := append(slices.Clone(apply.Failpoints), apply.CompensationFailpoints...)
	code := engineFailpoints(t)
	for _, fp := range code {
		if !slices.Contains(listed, fp) {
			t.Errorf("the engine hits failpoint %q, which neither apply.Failpoints nor apply.CompensationFailpoints lists", fp)
		}
	}
	for _, fp := range listed {
		if !slices.Contains(code, fp) {
			t.Errorf("failpoint %q is listed but no code hits it", fp)
		}
	}
	covered := map[string][]string{}
	for _, s := range allScenarios() {
		for _, c := range s.covers {
			covered[c] = append(covered[c], s.name)
		}
	}
	var wanted []string
	for _, fp := range listed {
		wanted = append(wanted, coverFailpoint(fp))
	}
	for _, k := range faultproxy.Kinds() {
		wanted = append(wanted, coverFault(k))
	}
	for _, w := range wanted {
		if len(covered[w]) == 0 {
			t.Errorf("no scenario covers %s: add one", w)
		}
	}
	t.Logf("coverage: %d failpoints (%d in the engine's code) and %d proxy fault kinds", len(listed), len(code), len(faultproxy.Kinds()))
}

// coverFailpoint and coverFault name what a scenario covers.
func coverFailpoint(name string) string      { return "failpoint " + name }
func coverFault(kind faultproxy.Kind) string { return "fault " + string(kind) }
