package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

func obj(apiVersion, kind, ns, name string) object.Declared {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetName(name)
	u.SetNamespace(ns)
	return object.Declared{Origin: "test " + kind + "/" + name, Object: u}
}

func refs(objs []object.Declared) []string {
	var s []string
	for _, c := range objs {
		o := c.Object
		s = append(s, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	return s
}

func TestObjectsOrderAndNamespaces(t *testing.T) {
	crd := obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com")
	crd.Object.Object["spec"] = map[string]any{"group": "example.com", "scope": "Cluster", "names": map[string]any{"kind": "Widget"}}
	in := []object.Declared{
		obj("networking.k8s.io/v1", "NetworkPolicy", "", "deny"),
		obj("apps/v1", "Deployment", "", "web"),
		obj("v1", "Service", "", "web"),
		obj("example.com/v1", "Widget", "", "w"),
		obj("example.com/v1", "Gadget", "", "g"),
		obj("v1", "ConfigMap", "other", "cfg"),
		obj("v1", "ConfigMap", "", "cfg"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader"),
		obj("v1", "Namespace", "", "shop"),
		crd,
	}
	got, err := Objects(in, Options{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Namespace//shop",
		"CustomResourceDefinition//widgets.example.com",
		"ClusterRole//reader",
		"ConfigMap/other/cfg",
		"ConfigMap/shop/cfg",
		"Service/shop/web",
		"Deployment/shop/web",
		"Gadget/shop/g",
		"Widget//w",
		"NetworkPolicy/shop/deny",
	}
	if diff := cmp.Diff(want, refs(got)); diff != "" {
		t.Errorf("Objects() order (-want +got):\n%s", diff)
	}
	if in[1].Object.GetNamespace() != "" || got[6].Origin != "test Deployment/web" {
		t.Errorf("Objects() modified its input (namespace %q) or lost an origin (%q)", in[1].Object.GetNamespace(), got[6].Origin)
	}
}

func TestObjectsLabelsTheRelease(t *testing.T) {
	got, err := Objects([]object.Declared{obj("v1", "ConfigMap", "", "a")}, Options{Namespace: "demo", Release: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if l := got[0].Object.GetLabels()[object.ReleaseLabel]; l != "shop" {
		t.Errorf("label %s = %q, want shop", object.ReleaseLabel, l)
	}
}

func TestObjectsRefusesDuplicates(t *testing.T) {
	in := []object.Declared{obj("v1", "ConfigMap", "", "cfg"), obj("v1", "ConfigMap", "shop", "cfg")}
	in[1].Origin = "manifests/cfg.yaml:3"
	_, err := Objects(in, Options{Namespace: "shop"})
	want := "ConfigMap/shop/cfg is declared twice: by test ConfigMap/cfg and by manifests/cfg.yaml:3"
	if err == nil || err.Error() != want {
		t.Fatalf("Objects() error = %v, want %q", err, want)
	}
}

func TestObjectsRemovesServerFieldsAndSecretValues(t *testing.T) {
	s := obj("v1", "Secret", "", "db")
	s.Object.Object["data"] = map[string]any{"password": "c2VjcmV0"}
	s.Object.Object["stringData"] = map[string]any{"user": "admin"}
	s.Object.Object["status"] = map[string]any{"x": "y"}
	s.Object.SetResourceVersion("42")
	s.Object.SetUID("abc")
	got, err := Objects([]object.Declared{s}, Options{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[0].Object.Object["data"]; !ok {
		t.Errorf("Objects() dropped the Secret's data; the planner needs it to digest values")
	}
	out, _ := Encode(Manifests(got), YAML)
	want := "apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    piceli.dev/secret-keys: password,user\n  name: db\n  namespace: shop\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("rendered secret (-want +got):\n%s", diff)
	}
	js, _ := Encode(Manifests(got), JSON)
	one, _ := EncodeOne(got[0].Object, JSON)
	dir := t.TempDir()
	WriteDir(dir, Manifests(got), YAML)
	file, _ := os.ReadFile(filepath.Join(dir, "000-secret-shop-db.yaml"))
	for _, enc := range [][]byte{out, js, one, file} {
		for _, leak := range []string{"c2VjcmV0", "admin", "42", "abc"} {
			if bytes.Contains(enc, []byte(leak)) {
				t.Errorf("encoded output contains %q:\n%s", leak, enc)
			}
		}
	}
}

func TestEncodeFormats(t *testing.T) {
	objs, err := Objects([]object.Declared{obj("v1", "ConfigMap", "", "a"), obj("v1", "ConfigMap", "", "b")}, Options{Namespace: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := Encode(Manifests(objs), YAML)
	wantY := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: demo\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: demo\n"
	if diff := cmp.Diff(wantY, string(y)); diff != "" {
		t.Errorf("Encode(YAML) (-want +got):\n%s", diff)
	}
	j, _ := Encode(Manifests(objs), JSON)
	if !strings.HasPrefix(string(j), "{\n  \"apiVersion\": \"v1\",\n  \"items\": [") || !strings.HasSuffix(string(j), "\"kind\": \"List\"\n}\n") {
		t.Errorf("Encode(JSON) is not an indented v1 List:\n%s", j)
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded, want an error")
	}
}

func TestWriteDirReplacesEarlierRender(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "README.md")
	os.WriteFile(keep, []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(dir, "009-configmap-n-old.yaml"), []byte("stale"), 0o644)
	objs, _ := Objects([]object.Declared{obj("v1", "ConfigMap", "", "a"), obj("v1", "Namespace", "", "n")}, Options{Namespace: "n"})
	names, err := WriteDir(dir, Manifests(objs), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"000-namespace-n.yaml", "001-configmap-n-a.yaml"}, names); diff != "" {
		t.Errorf("WriteDir() names (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff([]string{"000-namespace-n.yaml", "001-configmap-n-a.yaml", "README.md"}, got); diff != "" {
		t.Errorf("directory after WriteDir (-want +got):\n%s", diff)
	}
}
