package cli

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// Acceptance 2 of issue 29, the half a run of each command cannot show for
// every command: whatever this package prints as JSON (a document through
// writeJSON, a line through a json.Encoder) is a typed value whose JSON
// carries "schema". A map, an any or a struct without a schema field fails.
func TestEveryJSONTheCLIPrintsCarriesASchema(t *testing.T) {
	t.Parallel()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo, Dir: "."}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load this package: %v %v", err, pkgs)
	}
	pkg, printed := pkgs[0], 0
	for _, file := range pkg.Syntax {
		ast.Inspect(file, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok && fn.Name.Name == "writeJSON" {
				return false // its callers' documents are checked
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if arg := printedJSON(pkg.TypesInfo, call); arg != nil {
				printed++
				typ := pkg.TypesInfo.TypeOf(arg)
				if !hasSchemaField(typ, 0) {
					t.Errorf("%s prints %s as JSON, which has no \"schema\" field: print a typed document of the library", pkg.Fset.Position(call.Pos()), typ)
				}
			}
			return true
		})
	}
	if printed < 30 {
		t.Errorf("found %d places that print JSON; the walk is broken", printed)
	}
}

// printedJSON is the value call prints as JSON: the document of a
// writeJSON call or the value of a json.Encoder's Encode; nil for any
// other call.
func printedJSON(info *types.Info, call *ast.CallExpr) ast.Expr {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		if fun.Name == "writeJSON" && len(call.Args) == 2 {
			return call.Args[1]
		}
	case *ast.SelectorExpr:
		recv := info.TypeOf(fun.X)
		if fun.Sel.Name == "Encode" && recv != nil && strings.HasSuffix(recv.String(), "encoding/json.Encoder") && len(call.Args) == 1 {
			return call.Args[0]
		}
	}
	return nil
}

// hasSchemaField reports whether typ (or what it points to) is a struct
// with a field, its own or an embedded struct's, whose JSON name is
// "schema".
func hasSchemaField(typ types.Type, depth int) bool {
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	s, ok := typ.Underlying().(*types.Struct)
	if !ok || depth > 3 {
		return false
	}
	for i := range s.NumFields() {
		f := s.Field(i)
		name, _, _ := strings.Cut(reflect.StructTag(s.Tag(i)).Get("json"), ",")
		if name == "schema" || (f.Embedded() && name == "" && hasSchemaField(f.Type(), depth+1)) {
			return true
		}
	}
	return false
}
