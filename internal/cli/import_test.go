package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/importer"
)

// importInput is a ConfigMap and a Service selecting pods by a label of
// their own (both builder calls) and a Role with labels of its own (a
// literal: the Role builder takes no app.Labels).
const importInput = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\ndata: {LEVEL: info}\n" +
	"---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n" +
	"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader, namespace: shop, labels: {team: a}}\n" +
	"rules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [get]}]\n"

// TestImportYAMLWritesAModuleThatRenders: import says how many objects
// took each form, why one fell back, what it wrote and what to run next,
// and that command renders the module.
func TestImportYAMLWritesAModuleThatRenders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"k8s/web.yaml": importInput})
	out := filepath.Join(dir, "shop")
	res := run(t, "import", "yaml", filepath.Join(dir, "k8s"), "--out", out, "--piceli-source", repoRoot(t))
	if res.code != ExitOK {
		t.Fatalf("import exit %d; stderr:\n%s", res.code, res.stderr)
	}
	next := "next: piceli render --spec " + filepath.Join(out, "release.toml")
	for _, want := range []string{"imported 3 objects: 2 builder calls, 1 k8s.io/api literals, 0 YAML files",
		"Role/shop/reader is a literal: its labels are not the builder's", "wrote " + out + ": ", "role.go", "infra.go", "release.toml", next} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	rendered := run(t, strings.Fields(strings.TrimPrefix(next, "next: piceli "))...)
	if rendered.code != ExitOK || !strings.Contains(rendered.stdout, "namespace: shop") || !strings.Contains(rendered.stdout, "LEVEL: info") {
		t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s", next, rendered.code, rendered.stdout, rendered.stderr)
	}
}

// TestImportForceReplacesOnlyWhatImportWrites: --force rewrites the
// module's files and keeps everything else in the directory.
func TestImportForceReplacesOnlyWhatImportWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "app")
	writeFiles(t, dir, map[string]string{
		"in.yaml":                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
		"app/old.go":                     "package old\n",
		"app/manifests/stale.yaml":       "stale\n",
		"app/NOTES.md":                   "mine\n",
		"app/.piceli-release/owner.json": "{}\n",
	})
	res := run(t, "import", "yaml", filepath.Join(dir, "in.yaml"), "--out", out, "--force", "--app", "app", "--piceli-source", repoRoot(t))
	if res.code != ExitOK {
		t.Fatalf("import --force exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, gone := range []string{"old.go", "manifests/stale.yaml"} {
		if _, err := os.Stat(filepath.Join(out, gone)); err == nil {
			t.Errorf("%s is still there after import --force", gone)
		}
	}
	for _, kept := range []string{"NOTES.md", ".piceli-release/owner.json", "infra.go"} {
		if _, err := os.Stat(filepath.Join(out, kept)); err != nil {
			t.Errorf("%s is missing after import --force: %v", kept, err)
		}
	}
}

// TestImportReportAsJSON: -o json prints the report as one
// piceli.import-report/v1 document: counts by form and kind, and each
// fallback with its reason.
func TestImportReportAsJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"k8s/web.yaml": importInput})
	res := run(t, "import", "yaml", filepath.Join(dir, "k8s"), "--out", filepath.Join(dir, "shop"), "--piceli-source", repoRoot(t), "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("import exit %d; stderr:\n%s", res.code, res.stderr)
	}
	var got importer.Report
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("stdout is not one report document: %v\n%s", err, res.stdout)
	}
	if got.Schema != importer.ReportSchema || got.Objects != 3 || got.Builders != 2 || got.Literals != 1 {
		t.Errorf("report %+v, want schema %s, 3 objects, 2 builder calls, 1 literal", got, importer.ReportSchema)
	}
	wantKinds := []importer.KindCount{{Kind: "ConfigMap", Builders: 1}, {Kind: "Role", Literals: 1}, {Kind: "Service", Builders: 1}}
	if !slices.Equal(got.Kinds, wantKinds) {
		t.Errorf("kinds %+v, want %+v", got.Kinds, wantKinds)
	}
	if len(got.Fallbacks) != 1 || got.Fallbacks[0].Object != "Role/shop/reader" || got.Fallbacks[0].Form != "literal" || !strings.Contains(got.Fallbacks[0].Reason, "labels") {
		t.Errorf("fallbacks %+v, want Role/shop/reader as a literal, for its labels", got.Fallbacks)
	}
}
