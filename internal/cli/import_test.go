package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportYAMLWritesAModuleThatRenders: import says what it wrote and
// what to run next, and that command renders the module.
func TestImportYAMLWritesAModuleThatRenders(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"k8s/web.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\ndata: {LEVEL: info}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n"})
	out := filepath.Join(dir, "shop")
	res := run(t, "import", "yaml", filepath.Join(dir, "k8s"), "--out", out, "--piceli-source", repoRoot(t))
	if res.code != ExitOK {
		t.Fatalf("import exit %d; stderr:\n%s", res.code, res.stderr)
	}
	next := "next: piceli render --spec " + filepath.Join(out, "release.toml")
	for _, want := range []string{"imported 2 objects: 0 builder calls, 2 k8s.io/api literals, 0 YAML files", "wrote " + out + ": ", "configmap.go", "infra.go", "release.toml", next} {
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
	dir := t.TempDir()
	out := filepath.Join(dir, "app")
	writeFiles(t, dir, map[string]string{
		"in.yaml":                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
		"app/old.go":                     "package old\n",
		"app/manifests/stale.yaml":       "stale\n",
		"app/NOTES.md":                   "mine\n",
		"app/.piceli-release/owner.json": "{}\n",
	})
	res := run(t, "import", "yaml", filepath.Join(dir, "in.yaml"), "--out", out, "--force", "--name", "app", "--piceli-source", repoRoot(t))
	if res.code != ExitOK {
		t.Fatalf("import --force exit %d; stderr:\n%s", res.code, res.stderr)
	}
	for _, gone := range []string{"old.go", "manifests/stale.yaml"} {
		if _, err := os.Stat(filepath.Join(out, gone)); err == nil {
			t.Errorf("%s is still there after import --force", gone)
		}
	}
	for _, kept := range []string{"NOTES.md", ".piceli-release/owner.json", "infra.go", "configmap.go"} {
		if _, err := os.Stat(filepath.Join(out, kept)); err != nil {
			t.Errorf("%s is missing after import --force: %v", kept, err)
		}
	}
}
