package crdgen_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/crdgen"
	"github.com/pynenc/piceli/internal/localpath"
)

// payload ends a comment, a string or a raw string and starts code that
// panics when it runs.
const payload = "*/\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }\n/*"

// hostileValues end Go comments and strings in every way, with line
// breaks a reader sees (\r, U+2028), a NUL, a byte order mark and a
// right-to-left override.
var hostileValues = []string{
	payload,
	"\"; func init() { panic(\"PICELI-INJECTED-CODE-RAN\") }; var _ = \"",
	"`; func init() { panic(\"PICELI-INJECTED-CODE-RAN\") }; var _ = `",
	"a\rfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }",
	"b\u2028func init() { panic(\"PICELI-INJECTED-CODE-RAN\") }",
	"c\x00d\ufeffe\u202ef",
}

// hostileCRD is a CRD whose every string a generator writes is hostile:
// group, version, kind, CRD name, descriptions, enum values, defaults and
// property names (ones a struct tag can hold: spaces, parentheses, braces,
// "*/" are all allowed there).
func hostileCRD() map[string]any {
	desc := strings.Join(hostileValues, "\n")
	var enum []any
	for _, v := range hostileValues {
		enum = append(enum, v)
	}
	props := map[string]any{
		"spec": map[string]any{"type": "object", "description": desc, "properties": map[string]any{
			"mode":                              map[string]any{"type": "string", "enum": enum, "description": desc, "default": payload},
			"*/ func init() { panic(1) } /*":    map[string]any{"type": "string", "description": desc},
			"nested ) } func init() { panic(2)": map[string]any{"type": "object", "description": payload, "properties": map[string]any{"a": map[string]any{"type": "string"}}},
		}},
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "evil" + payload},
		"spec": map[string]any{
			"group": "../../escape" + payload,
			"names": map[string]any{"kind": "Evil" + payload, "plural": "evils"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1/../.." + payload, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "description": desc, "properties": props}},
			}},
		},
	}
}

// TestSecurityCRDCodegenRunsNothingFromTheCRD (issue 28, hole 3, for
// generated custom resource types): a CRD whose names, descriptions, enum
// values and defaults end comments and strings generates files that stay
// in their package directory, parse, declare only types, constants, the
// constructor and DeepCopy methods (no init, no variable, no block
// comment, no import beyond the four the generator uses), and compile
// into a program that runs no injected code and reads every enum value
// back byte for byte.
func TestSecurityCRDCodegenRunsNothingFromTheCRD(t *testing.T) {
	out := generate(t, crdgen.Input{Documents: []crdgen.Document{{Origin: "hostile", Object: hostileCRD()}}})
	if len(out.Packages) != 1 {
		t.Fatalf("packages = %+v, want one", out.Packages)
	}
	pkg := out.Packages[0]
	for p, src := range out.Files {
		if err := localpath.Check(p); err != nil || path.Dir(p) != pkg.Dir || strings.Count(p, "/") != 2 || !strings.HasSuffix(p, ".go") {
			t.Errorf("file %q is not a .go file directly in package directory %q (%v)", p, pkg.Dir, err)
		}
		checkInertGo(t, p, src)
	}
	kind := pkg.Kinds[0]
	main := fmt.Sprintf(`package main

import (
	"encoding/json"
	"fmt"

	evil %q
)

func main() {
	o := evil.%s("x")
	var spec evil.%sSpec
	b, _ := json.Marshal([]string{o.Kind, o.APIVersion, evil.Group, evil.Version})
	fmt.Println(string(b))
	fmt.Println(enums())
	_ = spec
}
`, testModulePath+"/crds/"+pkg.Dir, kind.Constructor, kind.Type)
	dir := testModule(t, out, map[string]string{"hostile/main.go": main + enumPrinter(t, out.Files[pkg.Dir+"/"+strings.ToLower(kind.Type)+".go"])})
	got, err := goCmd(t, dir, "run", "./hostile")
	if err != nil || strings.Contains(got, "panic: ") {
		t.Fatalf("go run of a program using the hostile package: %v\n%s", err, got)
	}
	crd := hostileCRD()["spec"].(map[string]any)
	group, version := crd["group"].(string), crd["versions"].([]any)[0].(map[string]any)["name"].(string)
	want, _ := json.Marshal([]string{"Evil" + payload, group + "/" + version, group, version})
	wantEnum, _ := json.Marshal(hostileValues)
	if lines := strings.Split(strings.TrimSpace(got), "\n"); len(lines) != 2 || lines[0] != string(want) || lines[1] != string(wantEnum) {
		t.Errorf("the program printed\n%s\nwant\n%s\n%s", got, want, wantEnum)
	}
}

// enumPrinter is the source of func enums, which returns the enum
// constants declared in src, in order, as a JSON list.
func enumPrinter(t *testing.T, src []byte) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "kind.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				names = append(names, "evil."+s.(*ast.ValueSpec).Names[0].Name)
			}
		}
	}
	var list []string
	for _, n := range names {
		list = append(list, "string("+n+")")
	}
	return "\nfunc enums() string {\n\tb, _ := json.Marshal([]string{" + strings.Join(list, ", ") + "})\n\treturn string(b)\n}\n"
}

// allowedImports are the only packages generated code imports.
var allowedImports = []string{`"encoding/json"`, `"k8s.io/apimachinery/pkg/apis/meta/v1"`, `"k8s.io/apimachinery/pkg/runtime"`, `"k8s.io/apimachinery/pkg/util/intstr"`}

// checkInertGo fails unless src parses and declares only types,
// constants, functions named New* and DeepCopy methods: no init, no
// package-level variable, no block comment, no other import.
func checkInertGo(t *testing.T, name string, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, src)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				t.Errorf("%s declares a package-level variable", name)
			}
		case *ast.FuncDecl:
			method := d.Recv != nil && strings.HasPrefix(d.Name.Name, "DeepCopy")
			if !method && (d.Recv != nil || !strings.HasPrefix(d.Name.Name, "New")) {
				t.Errorf("%s declares func %s, which the generator never writes", name, d.Name.Name)
			}
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "/*") {
				t.Errorf("%s has a block comment, which input could end: %s", name, c.Text)
			}
		}
	}
	for _, imp := range f.Imports {
		if !slices.Contains(allowedImports, imp.Path.Value) {
			t.Errorf("%s imports %s", name, imp.Path.Value)
		}
	}
}
