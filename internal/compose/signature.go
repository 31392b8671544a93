package compose

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/pynenc/piceli/internal/inputfile"
)

// appImportPath is the package a composition function's types come from.
const appImportPath = "github.com/pynenc/piceli/app"

// wantSignature is the only signature a composition function may have.
const wantSignature = "func %s(ctx *app.Context) (*app.Composition, error)"

// goFunc is a composition function found in a Go file.
type goFunc struct {
	file    string // absolute path
	name    string
	pkgName string // the package clause of its file
}

// findFunc parses file and checks that it declares name with the
// composition signature.
func findFunc(file, name string) (*goFunc, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("file %s does not exist", file)
	}
	if err != nil {
		return nil, &BuildError{Output: err.Error()}
	}
	decl := topLevelFunc(f, name)
	if decl == nil {
		return nil, fmt.Errorf("%s declares no function %s; want "+wantSignature, filepath.Base(file), name, name)
	}
	if !hasSignature(decl, appAlias(f)) {
		pos := fset.Position(decl.Pos())
		return nil, fmt.Errorf("%s:%d: %s has signature %s, want "+wantSignature,
			filepath.Base(file), pos.Line, name, types.ExprString(decl.Type), name)
	}
	return &goFunc{file: file, name: name, pkgName: f.Name.Name}, nil
}

// topLevelFunc returns the function (not method) called name.
func topLevelFunc(f *ast.File, name string) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			return fn
		}
	}
	return nil
}

// appAlias returns the name under which f imports the app package: "" for
// a dot import, "-" when f does not import it.
func appAlias(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != appImportPath {
			continue
		}
		if imp.Name != nil {
			return dotless(imp.Name.Name)
		}
		return "app"
	}
	return "-"
}

func dotless(name string) string {
	if name == "." {
		return ""
	}
	return name
}

// hasSignature reports whether fn is func(*app.Context) (*app.Composition, error).
func hasSignature(fn *ast.FuncDecl, alias string) bool {
	t := fn.Type
	if t.TypeParams != nil || t.Results == nil || fieldCount(t.Params) != 1 || fieldCount(t.Results) != 2 {
		return false
	}
	res := t.Results.List
	last := res[len(res)-1].Type
	errIdent, ok := last.(*ast.Ident)
	return isAppPointer(t.Params.List[0].Type, alias, "Context") &&
		isAppPointer(res[0].Type, alias, "Composition") &&
		ok && errIdent.Name == "error"
}

// fieldCount counts the parameters of a list, named or not.
func fieldCount(l *ast.FieldList) int {
	n := 0
	for _, f := range l.List {
		n += max(1, len(f.Names))
	}
	return n
}

// isAppPointer reports whether e is *alias.name (or *name for a dot import).
func isAppPointer(e ast.Expr, alias, name string) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	if alias == "" {
		id, ok := star.X.(*ast.Ident)
		return ok && id.Name == name
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == alias && sel.Sel.Name == name
}

// declaresMain reports whether any of files declares func main.
func declaresMain(dir string, files []string) (bool, error) {
	for _, name := range files {
		src, err := inputfile.Read(filepath.Join(dir, name), inputfile.SpecLimit)
		if err != nil {
			return false, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			return false, &BuildError{Output: err.Error()}
		}
		if topLevelFunc(f, "main") != nil {
			return true, nil
		}
	}
	return false, nil
}
