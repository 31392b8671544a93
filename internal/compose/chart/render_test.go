package chart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/refusal"
)

var stackOpts = Options{Release: "demo", Namespace: "apps"}

func renderStack(t *testing.T, dir string, values map[string]any) []object.Declared {
	t.Helper()
	d, err := Digest(dir)
	if err != nil {
		t.Fatalf("Digest(%s) error = %v", dir, err)
	}
	objs, err := Render(t.Context(), Source{Path: dir, Digest: d, Values: values}, stackOpts)
	if err != nil {
		t.Fatalf("Render(%s) error = %v", dir, err)
	}
	return objs
}

// line is an object as "Kind/name <- dependencies".
func line(o object.Declared) string {
	s := o.Object.GetKind() + "/" + o.Object.GetName()
	if len(o.DependsOn) > 0 {
		s += " <- " + strings.Join(o.DependsOn, ", ")
	}
	return s
}

func TestRenderOrdersCRDsHooksAndSubcharts(t *testing.T) {
	objs := renderStack(t, "testdata/stack", nil)
	var got []string
	for _, o := range objs {
		got = append(got, line(o))
	}
	pre := "origin chart stack stack/templates/hooks.yaml (document 1)"
	late := "origin chart stack stack/templates/hooks.yaml (document 2)"
	want := []string{
		"CustomResourceDefinition/widgets.test.piceli.dev",
		"ConfigMap/demo-pre-early",
		"ConfigMap/demo-pre-late <- " + pre,
		"ServiceAccount/demo-sub <- " + late,
		"ConfigMap/demo-config <- " + late,
		"Widget/demo-widget <- " + late,
		"ConfigMap/demo-post <- origin chart stack stack/charts/sub/templates/sa.yaml, origin chart stack stack/templates/config.yaml, origin chart stack stack/templates/widget.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Render(testdata/stack) objects (-want +got), the test hook left out:\n%s", diff)
	}
}

func TestRenderGivesTheReleaseAndCapabilitiesAndNoLookup(t *testing.T) {
	objs := renderStack(t, "testdata/stack", map[string]any{"size": 3})
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.Object.GetName()] = o.Object
	}
	data, _, _ := unstructured.NestedStringMap(byName["demo-config"].Object, "data")
	want := map[string]string{"namespace": "apps", "kube": DefaultKubeVersion, "looked-up": "{}"}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("demo-config data (-want +got):\n%s", diff)
	}
	size, _, _ := unstructured.NestedInt64(byName["demo-widget"].Object, "spec", "size")
	if size != 3 {
		t.Errorf("demo-widget spec.size = %d, want the value 3 given (as int64)", size)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	first := renderStack(t, "testdata/stack", nil)
	for range 5 {
		if diff := cmp.Diff(first, renderStack(t, "testdata/stack", nil)); diff != "" {
			t.Fatalf("a second Render differs (-first +again):\n%s", diff)
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(dir string)
		want  string
		wrong bool // pin a wrong digest
	}{
		{"a chart with another digest than pinned", nil, "the release pins sha256:0000", true},
		{"a dependency not vendored under charts/", func(dir string) { os.RemoveAll(filepath.Join(dir, "charts")) },
			`dependency "sub" (https://charts.example.invalid) is not vendored under charts/`, false},
		{"a delete hook", func(dir string) { hookFile(dir, "helm.sh/hook: pre-delete") },
			`has hook "pre-delete", which Piceli cannot run`, false},
		{"a hook deleted when it succeeded", func(dir string) {
			hookFile(dir, "helm.sh/hook: pre-install\n    helm.sh/hook-delete-policy: hook-succeeded")
		}, `has helm.sh/hook-delete-policy "hook-succeeded", which Piceli cannot honour`, false},
		{"a template error", func(dir string) { write(dir, "templates/bad.yaml", "{{ .Values.nope.deeper }}") },
			"render chart", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyChart(t, "testdata/stack")
			if tt.edit != nil {
				tt.edit(dir)
			}
			d, err := Digest(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wrong {
				d = "sha256:" + strings.Repeat("0", 64)
			}
			_, err = Render(t.Context(), Source{Path: dir, Digest: d}, stackOpts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !refusal.Is(err) {
				t.Errorf("Render() error = %v, want a refusal containing %q", err, tt.want)
			}
		})
	}
}

func TestDigestOfAnArchiveIsOfItsBytes(t *testing.T) {
	tgz := filepath.Join(t.TempDir(), "stack-1.0.0.tgz")
	writeArchive(t, tgz, map[string]string{"stack/Chart.yaml": "apiVersion: v2\nname: stack\nversion: 1.0.0\n",
		"stack/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"})
	d, err := Digest(tgz)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Render(t.Context(), Source{Path: tgz, Digest: d}, stackOpts)
	if err != nil || len(objs) != 1 || objs[0].Origin != "chart stack stack/templates/cm.yaml" {
		t.Fatalf("Render(archive) = %v, %v; want ConfigMap/cm from stack/templates/cm.yaml", objs, err)
	}
}

func hookFile(dir, annotations string) {
	write(dir, "templates/extra-hook.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  annotations:\n    "+annotations+"\n")
}

func write(dir, name, content string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		panic(err)
	}
}

// copyChart copies a chart directory into a temporary one.
func copyChart(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// writeArchive writes a gzipped tar of files, in the given names' order.
func writeArchive(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range sortedKeys(files) {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[name]))
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slicesSort(out)
	return out
}
