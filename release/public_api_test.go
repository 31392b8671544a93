package release_test

import (
	"fmt"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// publicPackages loads, with their types, every package of the module a
// user may import: everything outside internal/, cmd/, examples/ and
// tools/.
func publicPackages(t *testing.T) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: moduleDir}
	pkgs, err := packages.Load(cfg, module+"...")
	if err != nil {
		t.Fatalf("load the module's packages: %v", err)
	}
	var public []*packages.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("load %s: %v", p.PkgPath, p.Errors)
		}
		if isPublic(p.PkgPath) {
			public = append(public, p)
		}
	}
	if len(public) == 0 {
		t.Fatal("found no public package")
	}
	return public
}

// isPublic says whether a package path of the module is one users import.
func isPublic(path string) bool {
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rel, "/")
	return !slices.Contains([]string{"internal", "cmd", "examples", "tools"}, first) &&
		!strings.Contains(rel, "/internal/") && !strings.HasSuffix(rel, "/internal")
}

// surface walks the types reachable from a package's exported identifiers
// and reports, once each, every type a user cannot name or read: a named
// type of an internal package (an alias of one included) and an unexported
// named type of a public package.
type surface struct {
	seen     map[types.Type]bool
	problems map[string]bool
}

func (s *surface) object(o types.Object) {
	where := o.Pkg().Name() + "." + o.Name()
	switch o := o.(type) {
	case *types.TypeName:
		if o.IsAlias() {
			s.typ(where, o.Type())
			return
		}
		s.named(where, o.Type())
	default:
		s.typ(where, o.Type())
	}
}

// named walks the exported fields and methods of a public named type.
func (s *surface) named(where string, t types.Type) {
	if s.seen[t] {
		return
	}
	s.seen[t] = true
	n, ok := t.(*types.Named)
	if !ok {
		return
	}
	for m := range n.Methods() {
		if m.Exported() {
			s.typ(where+"."+m.Name(), m.Type())
		}
	}
	s.underlying(where, n.Underlying())
}

func (s *surface) underlying(where string, t types.Type) {
	switch u := t.(type) {
	case *types.Struct:
		for f := range u.Fields() {
			if f.Exported() {
				s.typ(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for m := range u.Methods() {
			if m.Exported() {
				s.typ(where+"."+m.Name(), m.Type())
			}
		}
	default:
		s.typ(where, u)
	}
}

// typ reports or walks one type met at where.
func (s *surface) typ(where string, t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		s.typ(where, types.Unalias(t))
	case *types.Named:
		s.namedUse(where, t)
	case *types.Pointer:
		s.typ(where, t.Elem())
	case *types.Slice:
		s.typ(where, t.Elem())
	case *types.Array:
		s.typ(where, t.Elem())
	case *types.Map:
		s.typ(where, t.Key())
		s.typ(where, t.Elem())
	case *types.Chan:
		s.typ(where, t.Elem())
	case *types.Signature:
		for v := range t.Params().Variables() {
			s.typ(where, v.Type())
		}
		for v := range t.Results().Variables() {
			s.typ(where, v.Type())
		}
	case *types.Struct, *types.Interface:
		s.underlying(where, t)
	}
}

func (s *surface) namedUse(where string, n *types.Named) {
	for a := range n.TypeArgs().Types() {
		s.typ(where, a)
	}
	obj := n.Obj()
	if obj.Pkg() == nil || !strings.HasPrefix(obj.Pkg().Path(), module) {
		return // the standard library and other modules answer for their own types
	}
	name := obj.Pkg().Path() + "." + obj.Name()
	switch {
	case !isPublic(obj.Pkg().Path()):
		s.problems[fmt.Sprintf("%s reaches the internal type %s", where, strings.TrimPrefix(name, module))] = true
	case !obj.Exported():
		s.problems[fmt.Sprintf("%s reaches the unexported type %s", where, strings.TrimPrefix(name, module))] = true
	default:
		s.named(obj.Pkg().Name()+"."+obj.Name(), n)
	}
}

// TestPublicAPIHasNoInternalTypes is acceptance 1 of issue 29: from no
// exported identifier of a public package (its functions, variables,
// constants, types, their exported fields and methods, followed through
// every public type they reach) can a user reach a type of an internal
// package, an alias of one, or an unexported type: every type a user
// gets has a public name and documented fields.
func TestPublicAPIHasNoInternalTypes(t *testing.T) {
	s := &surface{seen: map[types.Type]bool{}, problems: map[string]bool{}}
	for _, p := range publicPackages(t) {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if o := scope.Lookup(name); o.Exported() {
				s.object(o)
			}
		}
	}
	var problems []string
	for p := range s.problems {
		problems = append(problems, p)
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
}
