package cli

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestReleasePlanRefusesBadObjectsOfANewNamespace expects an object the
// server would refuse to be refused by plan (exit 2) even when the target
// namespace does not exist yet, with nothing stored and nothing created,
// as in a namespace that exists.
func TestReleasePlanRefusesBadObjectsOfANewNamespace(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := "t-absent-" + strings.ToLower(rand.Text()[:10])
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"release.toml":       fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n", sb.Kubeconfig, sb.Context, ns),
		"manifests/web.yaml": deploymentYAML("web", -5, ""),
	})
	spec := filepath.Join(dir, "release.toml")
	res := run(t, "release", "plan", "--spec", spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "Deployment/"+ns+"/web") || !strings.Contains(res.stderr, "spec.replicas: Invalid value: -5") {
		t.Fatalf("plan: exit %d, stderr:\n%s\nwant exit %d naming Deployment/%s/web and its replicas", res.code, res.stderr, ExitRefused, ns)
	}
	if _, err := os.Stat(filepath.Join(dir, ".piceli-release")); !os.IsNotExist(err) {
		t.Errorf("a refused plan created the state directory (stat: %v)", err)
	}
	if _, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get Namespace/%s = %v after a refused plan, want not found", ns, err)
	}
}
