package importgen_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/internal/importgen"
)

// webApp renders a ConfigMap, a Deployment using it and its Service with
// the builders, as import finds them: no namespace.
func webApp(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	a := app.New("demo")
	cm := a.ConfigMap("settings", app.Data("LEVEL", "info"))
	web := a.Deployment("web", app.Image("nginx:1.27"), app.Ports(80), app.EnvFromConfig("LEVEL", cm, "LEVEL"))
	a.Service(web)
	c, err := a.Composition(nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, o := range c.Objects() {
		out = append(out, o.Object.DeepCopy())
	}
	return out
}

func generate(t *testing.T, objs []*unstructured.Unstructured, max importgen.Form) *importgen.Output {
	t.Helper()
	in := importgen.Input{App: "demo", Module: "example.com/demo", PiceliSource: "/src/piceli", Source: "test", Target: importgen.Target{Namespace: "demo"}}
	for _, u := range objs {
		in.Objects = append(in.Objects, importgen.Object{Origin: "test", Manifest: u, Max: max})
	}
	out, err := importgen.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuilderCallsOnlyWhereTheBuildersSayItExactly: builder output comes
// back as builder calls; labels of the object's own, a field no option
// sets and a Service selecting pods by labels of its own stay builder
// calls (Labels, Edit, ServiceSelecting); an object no builder call can
// say is a literal, with the reason, and the calls that referred to it
// do without it.
func TestBuilderCallsOnlyWhereTheBuildersSayItExactly(t *testing.T) {
	tests := []struct {
		name   string
		change func(objs []*unstructured.Unstructured) // objs: ConfigMap, Deployment, Service
		want   []importgen.Form
		says   []string // in the generated Go files
		reason string   // of the Deployment, when it falls back
	}{
		{"as the builders wrote them", func([]*unstructured.Unstructured) {}, []importgen.Form{importgen.Builder, importgen.Builder, importgen.Builder}, []string{`a.Service(web)`}, ""},
		{"a label of its own", func(o []*unstructured.Unstructured) {
			l := o[0].GetLabels()
			l["team"] = "a"
			o[0].SetLabels(l)
		}, []importgen.Form{importgen.Builder, importgen.Builder, importgen.Builder}, []string{`"team":`, `app.Labels(`}, ""},
		{"a container field no option sets", func(o []*unstructured.Unstructured) {
			setContainer(o[1], "terminationMessagePath", "/dev/last-words")
		}, []importgen.Form{importgen.Builder, importgen.Builder, importgen.Builder}, []string{`app.Edit(func(d *appsv1.Deployment) {`, `d.Spec.Template.Spec.Containers[0].TerminationMessagePath = "/dev/last-words"`}, ""},
		{"a service selecting other pods", func(o []*unstructured.Unstructured) {
			_ = unstructured.SetNestedStringMap(o[2].Object, map[string]string{"app": "web"}, "spec", "selector")
		}, []importgen.Form{importgen.Builder, importgen.Builder, importgen.Builder}, []string{`a.ServiceSelecting(`, `map[string]string{"app": "web"}`}, ""},
		{"a workload name no component can take", func(o []*unstructured.Unstructured) {
			o[1].SetName("web.v1")
		}, []importgen.Form{importgen.Builder, importgen.Literal, importgen.Builder}, []string{`a.ServiceSelecting(`}, `its name "web.v1" is not a DNS-1123 label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := webApp(t)
			tt.change(objs)
			out := generate(t, objs, "")
			for i, want := range tt.want {
				if out.Forms[i] != want {
					t.Errorf("%s/%s: form %s, want %s (%s)", objs[i].GetKind(), objs[i].GetName(), out.Forms[i], want, out.Reasons[i])
				}
			}
			code := goFiles(out)
			for _, s := range tt.says {
				if !strings.Contains(code, s) {
					t.Errorf("the Go files do not say %s:\n%s", s, code)
				}
			}
			if !strings.Contains(out.Reasons[1], tt.reason) || (tt.reason == "") != (out.Reasons[1] == "") {
				t.Errorf("the Deployment's reason is %q, want %q", out.Reasons[1], tt.reason)
			}
		})
	}
}

// goFiles returns the generated Go files, in name order.
func goFiles(out *importgen.Output) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(out.Files)) {
		if strings.HasSuffix(name, ".go") {
			fmt.Fprintf(&b, "// %s\n%s", name, out.Files[name])
		}
	}
	return b.String()
}

func setContainer(u *unstructured.Unstructured, field, value string) {
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	cs[0].(map[string]any)[field] = value
	_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
}

// TestNoWaitComesBackAsNoWait: the annotation app.NoWait writes is read
// back as app.NoWait, not as a raw annotation.
func TestNoWaitComesBackAsNoWait(t *testing.T) {
	a := app.New("demo")
	a.Deployment("web", app.Image("nginx:1.27"), app.NoWait())
	c, err := a.Composition(nil)
	if err != nil {
		t.Fatal(err)
	}
	out := generate(t, []*unstructured.Unstructured{c.Objects()[0].Object.DeepCopy()}, "")
	if code := goFiles(out); out.Forms[0] != importgen.Builder || !strings.Contains(code, "app.NoWait()") || strings.Contains(code, app.AnnotationWait) {
		t.Errorf("form %s; Go files:\n%s\nwant a builder call with app.NoWait()", out.Forms[0], code)
	}
}

// TestMaxLowersTheForm: the importer's lowering is obeyed.
func TestMaxLowersTheForm(t *testing.T) {
	out := generate(t, webApp(t), importgen.File)
	for i, f := range out.Forms {
		if f != importgen.File {
			t.Errorf("object %d: form %s, want file", i, f)
		}
	}
	if _, ok := out.Files["manifests/deployment-web.yaml"]; !ok {
		t.Errorf("no manifests/deployment-web.yaml among %v", keys(out.Files))
	}
}

// TestSecretValuesAreNeverWritten: a Secret with values is declared by
// source, and neither form nor file carries its values.
func TestSecretValuesAreNeverWritten(t *testing.T) {
	s := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds"},
		"data": map[string]any{"password": "Y2FuYXJ5LWdlbmVyYXRlLTQ0Yjc="}, "stringData": map[string]any{"token": "canary-generate-91c0"},
	}}
	out := generate(t, []*unstructured.Unstructured{s}, "")
	if out.Forms[0] != importgen.Builder {
		t.Fatalf("Secret form %s, want a declaration (builder)", out.Forms[0])
	}
	for name, data := range out.Files {
		for _, v := range []string{"Y2FuYXJ5LWdlbmVyYXRlLTQ0Yjc=", "canary-generate-44b7", "canary-generate-91c0"} {
			if strings.Contains(string(data), v) {
				t.Errorf("%s holds the secret value %q", name, v)
			}
		}
	}
	if code := goFiles(out); !strings.Contains(code, `app.FromCluster("token", "creds", "token")`) {
		t.Errorf("the Go files do not import token from the cluster:\n%s", code)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestExplicitZeroValuesAreWrittenBack: a field set explicitly to its
// zero value, which Go leaves out, comes back through app.Zero, on a
// builder call and on a literal alike: whoever applies it owns it.
func TestExplicitZeroValuesAreWrittenBack(t *testing.T) {
	pc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": map[string]any{"name": "batch-low"},
		"value": int64(1000), "globalDefault": false,
	}}
	objs := webApp(t)
	_ = unstructured.SetNestedField(objs[1].Object, int64(0), "spec", "minReadySeconds")
	out := generate(t, append(objs, pc), "")
	if out.Forms[1] != importgen.Builder || out.Forms[3] != importgen.Literal {
		t.Errorf("forms %v (%q), want the Deployment a builder call and the PriorityClass a literal", out.Forms, out.Reasons)
	}
	code := goFiles(out)
	for _, want := range []string{`app.Zero("spec.minReadySeconds")`, `a.Object(batchLowPriorityClass(), app.Zero("globalDefault"))`} {
		if !strings.Contains(code, want) {
			t.Errorf("the Go files do not say %s:\n%s", want, code)
		}
	}
}
