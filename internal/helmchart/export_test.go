package helmchart_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/helmchart"
)

const image = "registry.example/web@sha256:1111111111111111111111111111111111111111111111111111111111111111"

func manifest(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// execute renders a chart's template as Helm does, with the two functions
// the export uses (index is built in; toJson is Helm's).
func execute(t *testing.T, files map[string][]byte, name string, values map[string]any) map[string]any {
	t.Helper()
	funcs := template.FuncMap{"toJson": func(v any) string { b, _ := json.Marshal(v); return string(b) }}
	tmpl, err := template.New(name).Funcs(funcs).Parse(string(files[name]))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, map[string]any{"Values": values}); err != nil {
		t.Fatalf("execute %s: %v", name, err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(out.Bytes(), &obj); err != nil {
		t.Fatalf("%s renders no YAML object: %v\n%s", name, err, out.String())
	}
	return obj
}

func valuesOf(t *testing.T, files map[string][]byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(files["values.yaml"], &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Template syntax inside an object (an annotation, a ConfigMap entry, a
// name used as a values key) renders as the literal text it is, never as
// a template action: an object cannot run code in the chart.
func TestSecurityChartExportEscapesTemplateSyntax(t *testing.T) {
	objs := []*unstructured.Unstructured{
		manifest(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: "cfg"
  annotations: {note: '{{ fail "ran" }}', other: "}} {{- .Values }}"}
data: {'{{ key }}': '{{ .Release.Name }} {{"{{"}}'}
`),
		manifest(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: 'web'}
spec:
  replicas: 2
  template:
    metadata: {annotations: {x: '{{ template "y" }}'}}
    spec:
      containers: [{name: '{{web}}', image: `+image+`, resources: {requests: {cpu: 10m}}}]
`),
	}
	files, err := helmchart.Export(objs, helmchart.Options{Name: "demo", Images: map[string]string{"web": image}})
	if err != nil {
		t.Fatal(err)
	}
	values := valuesOf(t, files)
	for i, name := range []string{"templates/000-configmap-cfg.yaml", "templates/001-deployment-web.yaml"} {
		if diff := cmp.Diff(objs[i].Object, execute(t, files, name, values), cmp.Transformer("num", toFloat)); diff != "" {
			t.Errorf("%s renders other than the object (-object +rendered):\n%s", name, diff)
		}
	}
}

// toFloat gives every number one type, whichever decoder read it.
func toFloat(v int64) float64 { return float64(v) }

// A value set in values.yaml reaches its field, and only it.
func TestChartExportValuesReachTheirFields(t *testing.T) {
	objs := []*unstructured.Unstructured{
		manifest(t, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: shop}\nspec:\n  rules: [{host: a.example}, {http: {}}, {host: b.example}]\n"),
		manifest(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: web, image: "+image+"}]\n"),
	}
	files, err := helmchart.Export(objs, helmchart.Options{Name: "demo", Images: map[string]string{"web": image}})
	if err != nil {
		t.Fatal(err)
	}
	values := valuesOf(t, files)
	values["hosts"].(map[string]any)["shop"].([]any)[1] = "c.example"
	values["replicas"].(map[string]any)["web"] = 5
	values["images"].(map[string]any)["web"] = "other@sha256:2"
	ing := execute(t, files, "templates/000-ingress-shop.yaml", values)
	rules, _, _ := unstructured.NestedSlice(ing, "spec", "rules")
	if got, _ := json.Marshal(rules); string(got) != `[{"host":"a.example"},{"http":{}},{"host":"c.example"}]` {
		t.Errorf("rules with hosts[1] = c.example: %s", got)
	}
	dep := execute(t, files, "templates/001-deployment-web.yaml", values)
	got, _ := json.Marshal(dep["spec"])
	if want := `{"replicas":5,"template":{"spec":{"containers":[{"image":"other@sha256:2","name":"web"}]}}}`; string(got) != want {
		t.Errorf("Deployment spec = %s, want %s", got, want)
	}
	if !strings.Contains(string(files["values.schema.json"]), `"additionalProperties": false`) {
		t.Errorf("values.schema.json refuses no unknown key:\n%s", files["values.schema.json"])
	}
}
