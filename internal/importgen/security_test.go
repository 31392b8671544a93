package importgen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/importgen"
)

// injections are names that end a Go comment or string, start code, or
// end a YAML comment, as hole 3 of issue 28 used them.
var injections = []string{
	"x\n*/\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }\n/*",
	"y*/ func init() { panic(\"PICELI-INJECTED-CODE-RAN\") } /*",
	"z\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }",
	"q`\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }\nvar _ = `",
	"w\"\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }\nvar _ = \"",
	"v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: smuggled}",
}

// TestSecurityGeneratedCodeCarriesNoInput is hole 3 of issue 28 at its
// source: Generate is given objects whose names and namespaces end
// comments and strings (name checks refuse these earlier; this is the
// second wall). Every Go file it writes parses, declares only Build and
// the literal functions, and holds the names only inside string literals
// or escaped in line comments; every YAML file holds exactly its object.
func TestSecurityGeneratedCodeCarriesNoInput(t *testing.T) {
	in := importgen.Input{App: "demo", Module: "example.com/demo", PiceliSource: "/src/piceli", Source: injections[0], Target: importgen.Target{Namespace: "demo", Context: injections[1], Kubeconfig: injections[2]}}
	for i, name := range injections {
		for _, kind := range []string{"LimitRange", "ConfigMap"} {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}}
			in.Objects = append(in.Objects, importgen.Object{Origin: "test", Manifest: u, Max: importgen.Literal})
		}
		w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": name, "namespace": injections[(i+1)%len(injections)]}}}
		in.Objects = append(in.Objects, importgen.Object{Origin: "test", Manifest: w})
	}
	out, err := importgen.Generate(in)
	if err != nil {
		t.Fatalf("Generate() = %v", err)
	}
	for path, data := range out.Files {
		switch {
		case strings.HasSuffix(path, ".go"):
			checkInertGo(t, path, data)
		case strings.HasSuffix(path, ".yaml"):
			checkOneYAMLObject(t, path, data)
		}
	}
}

// checkInertGo fails unless src parses and declares nothing but Build and
// functions returning one object, with no init and no package-level
// variables.
func checkInertGo(t *testing.T, path string, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, src)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.IMPORT {
				t.Errorf("%s declares a package-level %s:\n%s", path, d.Tok, src)
			}
		case *ast.FuncDecl:
			if d.Name.Name == "init" || d.Recv != nil || (d.Name.Name != "Build" && len(d.Body.List) != 1) {
				t.Errorf("%s declares func %s, which an import never writes:\n%s", path, d.Name.Name, src)
			}
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "/*") {
				t.Errorf("%s has a block comment, which input could end: %s", path, c.Text)
			}
		}
	}
	if slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool { return s.Path.Value == `"os"` }) {
		t.Errorf("%s imports os", path)
	}
}

// checkOneYAMLObject fails unless data is one YAML document (no line
// starts a new one) holding a Widget.
func checkOneYAMLObject(t *testing.T, path string, data []byte) {
	t.Helper()
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") {
			t.Errorf("%s holds a document separator, so more than its object:\n%s", path, data)
		}
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Errorf("%s does not parse: %v\n%s", path, err, data)
	}
	if m["kind"] != "Widget" {
		t.Errorf("%s holds kind %v, want Widget:\n%s", path, m["kind"], data)
	}
}
