package crdgen_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/crdgen"
)

// sampleKind is one served kind of the test CRDs with its schema.
type sampleKind struct {
	key        string // GROUP/VERSION/Kind
	pkgDir     string // the generated package under crds/
	typeName   string
	schema     *crdgen.Schema
	statusSub  bool
	apiVersion string
	kind       string
}

// sampleKinds lists every generated kind with the schema it came from.
func sampleKinds(t *testing.T, docs []crdgen.Document, out *crdgen.Output) []sampleKind {
	t.Helper()
	schemas := map[string]sampleKind{}
	for _, d := range docs {
		var c struct {
			Spec struct {
				Group    string `json:"group"`
				Names    struct{ Kind string }
				Versions []struct {
					Name         string
					Subresources map[string]any
					Schema       struct {
						OpenAPIV3Schema *crdgen.Schema `json:"openAPIV3Schema"`
					}
				}
			}
		}
		data, _ := json.Marshal(d.Object)
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		for _, v := range c.Spec.Versions {
			key := c.Spec.Group + "/" + v.Name + "/" + c.Spec.Names.Kind
			_, status := v.Subresources["status"]
			schemas[key] = sampleKind{key: key, schema: v.Schema.OpenAPIV3Schema, statusSub: status, apiVersion: c.Spec.Group + "/" + v.Name, kind: c.Spec.Names.Kind}
		}
	}
	var kinds []sampleKind
	for _, p := range out.Packages {
		for _, k := range p.Kinds {
			s := schemas[p.Group+"/"+p.Version+"/"+k.Kind]
			s.pkgDir, s.typeName = p.Dir, k.Type
			kinds = append(kinds, s)
		}
	}
	return kinds
}

// sampleObject is an object of kind k with every property the schema
// declares set. Variant 0 sets integers for int-or-string and non-zero
// scalars; variant 1 sets strings for int-or-string and zero scalars
// (false, 0, ""), which optional fields must still write.
func sampleObject(k sampleKind, variant int) map[string]any {
	obj := sampleValue(k.schema, variant, 0).(map[string]any)
	delete(obj, "metadata")
	if k.statusSub {
		delete(obj, "status")
	}
	obj["apiVersion"], obj["kind"] = k.apiVersion, k.kind
	obj["metadata"] = map[string]any{"name": fmt.Sprintf("sample-%d", variant)}
	return obj
}

// sampleValue is a value the schema s accepts, every property set.
func sampleValue(s *crdgen.Schema, variant, depth int) any {
	raw := map[string]any{"free": []any{int64(1), "x", true, map[string]any{"deep": nil}}}
	switch {
	case s == nil:
		return raw
	case s.IntOrString || s.Type == "" && len(s.AnyOf) == 2 && s.AnyOf[0].Type == "integer":
		return []any{int64(8080), "http"}[variant]
	case s.EmbeddedResource:
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}
	case s.PreserveUnknownFields && len(s.Properties) == 0:
		return raw
	}
	switch typ(s) {
	case "object":
		return sampleObjectValue(s, variant, depth)
	case "array":
		return []any{sampleValue(s.Items, variant, depth+1), sampleValue(s.Items, 1-variant, depth+1)}
	case "string":
		if len(s.Enum) > 0 {
			var v string
			json.Unmarshal(s.Enum[variant%len(s.Enum)], &v)
			return v
		}
		return []string{"text", ""}[variant]
	case "integer":
		return []int64{3, 0}[variant]
	case "number":
		return []float64{1.5, 0}[variant]
	case "boolean":
		return variant == 0
	}
	return raw
}

func typ(s *crdgen.Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case len(s.Properties) > 0:
		return "object"
	case s.Items != nil:
		return "array"
	}
	return ""
}

func sampleObjectValue(s *crdgen.Schema, variant, depth int) any {
	m := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		m[name] = sampleValue(s.Properties[name], variant, depth+1)
	}
	if len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Allows {
		m["key-a"] = sampleValue(s.AdditionalProperties.Schema, variant, depth+1)
	}
	return m
}

// roundTripMain is a program that, for each GROUP/VERSION/Kind=FILE
// argument, decodes FILE strictly (a property without a field fails) into
// the generated type, adds it with a.Objects to one app and FILE with
// a.File to another, and prints whether the two compositions hold the
// same object.
const roundTripMain = `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/app"
%s)

var kinds = map[string]func() runtime.Object{
%s}

func main() {
	for _, arg := range os.Args[1:] {
		key, file, _ := strings.Cut(arg, "=")
		fmt.Println(check(key, file))
	}
}

func check(key, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return "error " + key + ": " + err.Error()
	}
	obj := kinds[key]()
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return "error " + key + ": strict decode: " + err.Error()
	}
	typed, err := compose(func(a *app.App) { a.Objects(obj) })
	if err != nil {
		return "error " + key + ": typed: " + err.Error()
	}
	fromFile, err := compose(func(a *app.App) { a.File(file) })
	if err != nil {
		return "error " + key + ": file: " + err.Error()
	}
	if !bytes.Equal(typed, fromFile) {
		return "differ " + key + "\n typed: " + string(typed) + "\n  file: " + string(fromFile)
	}
	return "same " + key
}

func compose(add func(*app.App)) ([]byte, error) {
	a := app.New("roundtrip")
	add(a)
	c, err := a.Composition(nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(c.Objects()[0].Object.Object)
}
`

// Every generated kind of the test CRDs, built from its generated type,
// gives the composition the same object as the equivalent YAML file
// (acceptance 2 of issue 32), in two variants: integers and non-zero
// values, then strings and zero values that optional fields must keep.
// The YAML sets every property the schema declares, and decoding it into
// the type is strict, so a property the type lacks fails too.
func TestEveryKindRoundTripsLikeItsYAML(t *testing.T) {
	docs := readCRDs(t, testCRDs...)
	out := generate(t, crdgen.Input{Documents: docs})
	kinds := sampleKinds(t, docs, out)
	files := map[string]string{}
	var imports, table strings.Builder
	var args []string
	for i, k := range kinds {
		fmt.Fprintf(&imports, "\tp%d %q\n", i, testModulePath+"/crds/"+k.pkgDir)
		fmt.Fprintf(&table, "\t%q: func() runtime.Object { return &p%d.%s{} },\n", k.key, i, k.typeName)
		for v := range 2 {
			data, err := yaml.Marshal(sampleObject(k, v))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("samples/%d-%d.yaml", i, v)
			files[name] = string(data)
			args = append(args, k.key+"="+name)
		}
	}
	files["roundtrip/main.go"] = fmt.Sprintf(roundTripMain, imports.String(), table.String())
	dir := testModule(t, out, files)
	msg, err := goCmd(t, dir, append([]string{"run", "./roundtrip"}, args...)...)
	if err != nil {
		t.Fatalf("go run of the round trip: %v\n%s", err, msg)
	}
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	same := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "same ") {
			same++
			continue
		}
		t.Error(l)
	}
	if same != len(args) {
		t.Errorf("%d of %d objects round-tripped; want all (%d kinds, 2 variants)", same, len(args), len(kinds))
	}
}
