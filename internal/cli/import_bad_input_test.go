package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: %s\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n"

// TestImportRefusesBadInput is acceptance 5 of issue 15: bad input is
// refused with exit code 2, an error naming the file and document, and
// nothing written.
func TestImportRefusesBadInput(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string // inputs, relative to the test directory
		want  []string
	}{
		{
			name:  "malformed YAML names the file, document and line",
			files: map[string]string{"a.yaml": cm + "---\napiVersion: v1\nkind: x\n  bad: : indent\n"},
			args:  []string{"a.yaml"}, want: []string{"a.yaml: document 2 (line 8)", "invalid YAML"},
		},
		{
			name:  "a document without a kind names its document after a comment-only one",
			files: map[string]string{"a.yaml": "# notes\n---\n" + cm + "---\napiVersion: v1\nmetadata: {name: x}\n"},
			args:  []string{"a.yaml"}, want: []string{"a.yaml: document 2", "no kind"},
		},
		{
			name:  "an object that does not fit its type names the file, document and object",
			files: map[string]string{"b.yaml": cm + "---\n" + strings.Replace(deployment, "%s", `"three"`, 1)},
			args:  []string{"b.yaml"}, want: []string{"b.yaml: document 2", "Deployment/web", "replicas"},
		},
		{
			name:  "an object imported twice names both documents",
			files: map[string]string{"a.yaml": cm, "more/b.yaml": "# again\n" + cm},
			args:  []string{"a.yaml", "more"}, want: []string{"ConfigMap", "settings", "a.yaml: document 1", "b.yaml: document 1", "twice"},
		},
		{
			name:  "a List item without a name names the document",
			files: map[string]string{"l.yaml": `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap"}]}`},
			args:  []string{"l.yaml"}, want: []string{"l.yaml: document 1", "item 0", "metadata.name is required"},
		},
		{
			name: "a missing file is named",
			args: []string{"nowhere.yaml"}, want: []string{"nowhere.yaml", "no such file"},
		},
		{
			name:  "a directory without manifests is named",
			files: map[string]string{"empty/notes.txt": "nothing"},
			args:  []string{"empty"}, want: []string{"empty", "no .yaml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			out := filepath.Join(dir, "out")
			args := []string{"import", "yaml", "--out", out, "--piceli-source", repoRoot(t)}
			for _, a := range tt.args {
				args = append(args, filepath.Join(dir, a))
			}
			res := run(t, args...)
			checkRefused(t, res, tt.want)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused import created %s", out)
			}
		})
	}
}

// TestImportRefusesToOverwrite: an existing, non-empty output directory
// is refused without --force and left as it was.
func TestImportRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n", "out/infra.go": "package mine\n"})
	res := run(t, "import", "yaml", filepath.Join(dir, "in.yaml"), "--out", filepath.Join(dir, "out"), "--piceli-source", repoRoot(t))
	checkRefused(t, res, []string{filepath.Join(dir, "out"), "not empty", "--force"})
	if got, _ := os.ReadFile(filepath.Join(dir, "out", "infra.go")); string(got) != "package mine\n" {
		t.Errorf("out/infra.go = %q after a refused import, want it untouched", got)
	}
}

// TestImportLiveRefusesAnUnnamedTarget: live import needs an explicit
// kubeconfig, context and namespace, and refuses ~/.kube/config, before
// connecting to anything.
func TestImportLiveRefusesAnUnnamedTarget(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFiles(t, home, map[string]string{".kube/config": "apiVersion: v1\nkind: Config\n"})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no kubeconfig", []string{"--context", "c", "--namespace", "n"}, []string{"--kubeconfig", "--context", "--namespace"}},
		{"no context", []string{"--kubeconfig", "k", "--namespace", "n"}, []string{"--context"}},
		{"the default kubeconfig", []string{"--kubeconfig", filepath.Join(home, ".kube", "config"), "--context", "c", "--namespace", "n"}, []string{"default kubeconfig"}},
		{"an unknown context", []string{"--kubeconfig", filepath.Join(home, ".kube", "other"), "--context", "c", "--namespace", "n"}, []string{"other"}},
	}
	writeFiles(t, home, map[string]string{".kube/other": "apiVersion: v1\nkind: Config\n"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			res := run(t, append([]string{"import", "live", "--out", out}, tt.args...)...)
			checkRefused(t, res, tt.want)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused import created %s", out)
			}
		})
	}
}

// checkRefused fails unless res exited 2, printed nothing and named want.
func checkRefused(t *testing.T, res result, want []string) {
	t.Helper()
	if res.code != ExitRefused {
		t.Fatalf("exit = %d, want %d (refused); stderr:\n%s", res.code, ExitRefused, res.stderr)
	}
	for _, w := range want {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr does not name %q:\n%s", w, res.stderr)
		}
	}
	if res.stdout != "" {
		t.Errorf("a refused import printed:\n%s", res.stdout)
	}
}
