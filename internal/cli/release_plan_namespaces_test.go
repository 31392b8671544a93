package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestReleasePlanRefusesNamespacesTheSpecDoesNotName expects an object
// outside the target namespace to be refused (exit 2, nothing stored)
// until [target] namespaces names its namespace, and the plan then to list
// both namespaces it writes to.
func TestReleasePlanRefusesNamespacesTheSpecDoesNotName(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	other := sb.Namespace(t)
	r := newRelease(t, sb, "", map[string]string{
		"cm.yaml":    configMapYAML("a", "value", "1"),
		"other.yaml": strings.Replace(configMapYAML("b", "value", "1"), "  name: b\n", "  name: b\n  namespace: "+other+"\n", 1),
	})
	res := run(t, "release", "plan", "--spec", r.spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "ConfigMap/"+other+"/b") || !strings.Contains(res.stderr, "target.namespaces") {
		t.Fatalf("plan: exit %d, stderr:\n%s\nwant exit %d naming ConfigMap/%s/b and target.namespaces", res.code, res.stderr, ExitRefused, other)
	}
	if _, err := os.Stat(r.stateDir); !os.IsNotExist(err) {
		t.Errorf("a refused plan created the state directory (stat: %v)", err)
	}

	spec, err := os.ReadFile(r.spec)
	if err != nil {
		t.Fatal(err)
	}
	allowed := strings.Replace(string(spec), "namespace = \""+r.ns+"\"\n", fmt.Sprintf("namespace = %q\nnamespaces = [%q]\n", r.ns, other), 1)
	writeFiles(t, filepath.Dir(r.spec), map[string]string{"release.toml": allowed})
	want := []string{r.ns, other}
	slices.Sort(want)
	if p := r.plan(t); !slices.Equal(p.Namespaces, want) {
		t.Errorf("plan namespaces = %q, want %q", p.Namespaces, want)
	}
	text := run(t, "release", "plan", "--spec", r.spec)
	if want := "writes to namespaces: " + strings.Join(want, ", "); !strings.Contains(text.stdout, want) {
		t.Errorf("plan text does not contain %q:\n%s", want, text.stdout)
	}
}
