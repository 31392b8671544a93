package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// releaseDir writes a YAML release targeting the sandbox in a fresh
// namespace and returns the spec path.
func releaseDir(t *testing.T, sb *sandboxtest.Sandbox, context string, manifests map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	ns := sb.Namespace(t)
	files := map[string]string{
		"release.toml": "[target]\nkubeconfig = \"" + sb.Kubeconfig + "\"\ncontext = \"" + context + "\"\nnamespace = \"" + ns + "\"\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n",
	}
	for name, body := range manifests {
		files["manifests/"+name] = body
	}
	writeFiles(t, dir, files)
	return filepath.Join(dir, "release.toml")
}

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n"

func storedPlans(t *testing.T, specPath string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(specPath), ".piceli-release", "plans", "*.json"))
	return files
}

func TestReleasePlanStoresAndDiffDoesNot(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	specPath := releaseDir(t, sb, sb.Context, map[string]string{"cm.yaml": configMap})

	diff := run(t, "release", "diff", "--spec", specPath, "--exit-code")
	_, stateErr := os.Stat(filepath.Join(filepath.Dir(specPath), ".piceli-release"))
	if diff.code != ExitFailed || !strings.Contains(diff.stdout, "ConfigMap/") || stateErr == nil {
		t.Fatalf("diff --exit-code: exit %d, %d plans stored, stdout:\n%s\nwant exit 1, the ConfigMap shown, nothing stored", diff.code, len(storedPlans(t, specPath)), diff.stdout)
	}
	if !strings.Contains(diff.stderr, "using server https://127.0.0.1:") || !strings.Contains(diff.stderr, "context "+sb.Context) {
		t.Errorf("diff does not say which server and context it uses:\n%s", diff.stderr)
	}

	p := run(t, "release", "plan", "--spec", specPath)
	if p.code != 0 || len(storedPlans(t, specPath)) != 1 || !strings.Contains(p.stdout, "apply it with: piceli release apply --spec "+specPath+" --approve ") {
		t.Fatalf("plan: exit %d, %d plans stored, stdout:\n%s%s", p.code, len(storedPlans(t, specPath)), p.stdout, p.stderr)
	}
	js := run(t, "release", "plan", "--spec", specPath, "-o", "json")
	if js.code != 0 || !strings.Contains(js.stdout, `"schema": "piceli.plan/v1"`) || !strings.Contains(js.stdout, `"hash": "sha256:`) {
		t.Errorf("plan -o json: exit %d, stdout:\n%s", js.code, js.stdout)
	}
}

func TestReleasePlanRefusesBeforeStoringAnything(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	tests := []struct {
		name      string
		context   string
		manifests map[string]string
		want      []string
	}{
		{"a context the kubeconfig lacks", "no-such-context", map[string]string{"cm.yaml": configMap}, []string{`"no-such-context"`, sb.Context}},
		{"an unknown kind", sb.Context, map[string]string{"w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"}, []string{`no kind "Widget"`, "w.yaml:1"}},
		{"a cluster-scoped kind with a namespace", sb.Context, map[string]string{"cr.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n  namespace: x\n"}, []string{"ClusterRole", "cr.yaml:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specPath := releaseDir(t, sb, tt.context, tt.manifests)
			res := run(t, "release", "plan", "--spec", specPath)
			if res.code != ExitRefused {
				t.Fatalf("plan: exit %d, want %d; stderr:\n%s", res.code, ExitRefused, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr does not name %q:\n%s", w, res.stderr)
				}
			}
			if n := len(storedPlans(t, specPath)); n != 0 {
				t.Errorf("a refused plan stored %d plan files", n)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(specPath), ".piceli-release")); err == nil {
				t.Errorf("a refused plan created the state directory")
			}
		})
	}
}

// An unknown plan hash is refused before anything is locked or written:
// the state directory does not even come into existence.
func TestApplyUnknownHashLeavesNoState(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	specPath := releaseDir(t, sb, sb.Context, map[string]string{"cm.yaml": configMap})
	res := run(t, "release", "apply", "--spec", specPath, "--approve", "0123456789ab")
	if res.code != ExitRefused || !strings.Contains(res.stderr, "no such plan") {
		t.Fatalf("apply --approve of an unknown hash: exit %d, stderr:\n%s\nwant exit 2 and no such plan", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(specPath), ".piceli-release")); !os.IsNotExist(err) {
		t.Errorf("a refused apply created the state directory (stat: %v)", err)
	}
}
