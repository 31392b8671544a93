package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileCRDYAML is a CRD whose group, version and kind try to lead paths
// out of --out and end Go comments and strings (a hostile metadata.name
// is refused when the file is read).
const hostileCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: evils.escape.test
spec:
  group: "../../../escape/.."
  names: {kind: "../../Evil\n*/", plural: evils}
  scope: Namespaced
  versions:
  - name: "/../../../../tmp/v1"
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: "*/\nfunc init() { panic(\"PICELI-INJECTED-CODE-RAN\") }\n/*"
        properties:
          spec: {type: object, properties: {"../x": {type: string}}}
`

// TestSecurityCodegenCRDWritesOnlyInsideOut (issue 28, hole 3, for
// piceli codegen crd): a CRD whose group, version and kind are paths
// leading out of --out generates files only below --out, and a symlink
// planted in --out towards another directory is not followed: the run is
// refused and nothing is written through it.
func TestSecurityCodegenCRDWritesOnlyInsideOut(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"in/hostile.yaml": hostileCRDYAML})
	out := filepath.Join(base, "work", "out")
	res := run(t, "codegen", "crd", filepath.Join(base, "in", "hostile.yaml"), "--out", out)
	if res.code != ExitOK {
		t.Fatalf("codegen crd of the hostile CRD: exit %d\n%s", res.code, res.stderr)
	}
	files := regularFilesUnder(t, base)
	for _, f := range files {
		if f != "in/hostile.yaml" && !strings.HasPrefix(f, "work/out/") {
			t.Errorf("codegen crd wrote %s, outside --out", f)
		}
	}
	if len(files) != 3 {
		t.Errorf("files under the test directory: %v; want the input and one package (doc.go and the kind's file)", files)
	}

	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(base, "out2")
	if err := os.MkdirAll(out2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(out2, "crdgen.piceli.test")); err != nil {
		t.Fatal(err)
	}
	res = run(t, "codegen", "crd", widgetCRDs(t), "--out", out2)
	if res.code != ExitRefused {
		t.Errorf("codegen crd into --out with a symlink leading out: exit %d, want %d\n%s", res.code, ExitRefused, res.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("codegen crd wrote %d entries through the symlink into %s", len(entries), outside)
	}
}

// regularFilesUnder lists the regular files under dir, relative and
// slash-separated.
func regularFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	return files
}
