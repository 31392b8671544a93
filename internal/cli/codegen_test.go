package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/pynenc/piceli/internal/codegen"
)

// widgetCRDs is the CRD file internal/crdgen's tests are written for.
func widgetCRDs(t *testing.T) string {
	return filepath.Join(repoRoot(t), "internal", "crdgen", "testdata", "crds", "widgets.yaml")
}

// codegen crd writes one package per group and served version and, with
// -o json, prints the piceli.codegen/v1 document; a second run writes the
// same bytes.
func TestCodegenCRDWritesPackagesAndDocument(t *testing.T) {
	out := filepath.Join(t.TempDir(), "crds")
	res := run(t, "codegen", "crd", widgetCRDs(t), "--out", out, "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("codegen crd: exit %d\n%s", res.code, res.stderr)
	}
	var doc codegen.Result
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("codegen crd -o json: %v\n%s", err, res.stdout)
	}
	want := []string{"crdgen.piceli.test/v1/doc.go", "crdgen.piceli.test/v1/gadget.go", "crdgen.piceli.test/v1/widget.go", "crdgen.piceli.test/v1beta1/doc.go", "crdgen.piceli.test/v1beta1/widget.go"}
	if doc.Schema != codegen.ResultSchema || !slices.Equal(doc.Files, want) || len(doc.Packages) != 2 || doc.Packages[0].Kinds[1].Constructor != "NewWidget" {
		t.Fatalf("codegen crd -o json = %+v, want schema %s, files %v and NewWidget", doc, codegen.ResultSchema, want)
	}
	first := readFiles(t, out, want)
	again := run(t, "codegen", "crd", widgetCRDs(t), "--out", out)
	if again.code != ExitOK || !strings.Contains(again.stdout, "package v1 (crdgen.piceli.test/v1): Gadget, Widget") {
		t.Fatalf("second codegen crd: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}
	for p, data := range readFiles(t, out, want) {
		if data != first[p] {
			t.Errorf("%s changed between two runs on the same CRDs", p)
		}
	}
}

// A kind dropped from the input loses its generated file on the next run;
// a file of the user's in a package directory is kept, and one in the way
// of a generated file is refused (exit 2) with nothing written.
func TestCodegenCRDReplacesOnlyItsOwnFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "crds")
	if res := run(t, "codegen", "crd", widgetCRDs(t), "--out", out); res.code != ExitOK {
		t.Fatalf("codegen crd: exit %d\n%s", res.code, res.stderr)
	}
	mine := filepath.Join(out, "crdgen.piceli.test", "v1", "helpers.go")
	writeFiles(t, out, map[string]string{"crdgen.piceli.test/v1/helpers.go": "package v1\n"})
	data, _ := os.ReadFile(widgetCRDs(t))
	widgetOnly := filepath.Join(t.TempDir(), "widget.yaml")
	writeFiles(t, filepath.Dir(widgetOnly), map[string]string{"widget.yaml": strings.Split(string(data), "\n---\n")[0]})
	res := run(t, "codegen", "crd", widgetOnly, "--out", out, "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("codegen crd of the Widget alone: exit %d\n%s", res.code, res.stderr)
	}
	var doc codegen.Result
	json.Unmarshal([]byte(res.stdout), &doc)
	if !slices.Equal(doc.Removed, []string{"crdgen.piceli.test/v1/gadget.go"}) {
		t.Errorf("removed %v, want the Gadget's file", doc.Removed)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's helpers.go is gone: %v", err)
	}
	writeFiles(t, out, map[string]string{"crdgen.piceli.test/v1/widget.go": "package v1 // mine\n"})
	res = run(t, "codegen", "crd", widgetCRDs(t), "--out", out)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "crdgen.piceli.test/v1/widget.go in "+out+" exists and was not written by piceli codegen crd") {
		t.Fatalf("codegen crd over a file of the user's: exit %d, want %d\n%s", res.code, ExitRefused, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "crdgen.piceli.test", "v1", "gadget.go")); err == nil {
		t.Errorf("the refused run wrote gadget.go")
	}
}

// Bad input exits 2, names the file and line or the key, and writes
// nothing.
func TestCodegenCRDRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"broken.yaml":    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: [unclosed\n",
		"noschema.yaml":  "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: as.b.test}\nspec:\n  group: b.test\n  names: {kind: A, plural: as}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, storage: true}\n",
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"empty/README":   "no manifests here\n",
	})
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed YAML names the file and line", []string{filepath.Join(dir, "broken.yaml")}, "broken.yaml:4"},
		{"a served version without a schema names the key", []string{filepath.Join(dir, "noschema.yaml")}, "noschema.yaml:1: spec.versions[v1].schema.openAPIV3Schema: is missing"},
		{"a file without CRDs", []string{filepath.Join(dir, "configmap.yaml")}, "no CustomResourceDefinition in"},
		{"a directory without manifests", []string{filepath.Join(dir, "empty")}, "holds no .yaml, .yml or .json file"},
		{"a FIFO is not read", []string{fifo}, "a FIFO: not a regular file"},
		{"a device is not read", []string{"/dev/zero"}, "a device: not a regular file"},
		{"a missing file", []string{filepath.Join(dir, "missing.yaml")}, "missing.yaml: no such file"},
		{"files and a cluster", []string{widgetCRDs(t), "--crd", "a.b"}, "CRD files and a cluster were both named"},
		{"a cluster without a kubeconfig", []string{"--crd", "a.b"}, "needs a kubeconfig file, a context and CRD names"},
		{"a bad package name", []string{widgetCRDs(t), "--package", "Not-Go"}, `package name "Not-Go"`},
		{"an unknown output format", []string{widgetCRDs(t), "-o", "yaml"}, `unknown output format "yaml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, append([]string{"codegen", "crd", "--out", out}, tt.args...)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", res.code, ExitRefused, tt.want, res.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run created %s", out)
			}
		})
	}
}

func readFiles(t *testing.T, dir string, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	return out
}
