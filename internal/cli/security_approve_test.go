package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// badApprovals are the --approve values of hole 9 of issue 28, for a plan
// whose hex digits are hex: a glob that matched a stored plan, a path out
// of the plan store, upper case, 11 and 65 digits.
func badApprovals(hex string) map[string]string {
	return map[string]string{
		"a glob":    hex[:4] + "********",
		"a path":    "../x",
		"upper":     strings.ToUpper(hex),
		"11 digits": hex[:11],
		"65 digits": hex + "0",
	}
}

// TestSecurityApprovalIsHexEverywhere is hole 9 of issue 28 for every
// command that takes --approve: each bad value exits 2 naming the rule
// before anything is read from a cluster or written (the directory holds
// the same files after as before).
func TestSecurityApprovalIsHexEverywhere(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"cluster.kubeconfig": "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\ncontexts:\n- name: test\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n",
		"release.toml":       goodTarget + "[release]\nname = \"demo\"\ncomposition = \"manifests/\"\n",
		"manifests/cm.yaml":  configMap,
	})
	spec := filepath.Join(dir, "release.toml")
	kube := []string{"--kubeconfig", filepath.Join(dir, "cluster.kubeconfig"), "--context", "test", "--namespace", "demo", "--dir", filepath.Join(dir, "registry")}
	commands := map[string][]string{
		"release apply":      {"release", "apply", "--spec", spec},
		"release rollback":   {"release", "rollback", "--spec", spec},
		"deploy":             {"deploy", "--spec", spec},
		"registry install":   append([]string{"registry", "install", "--image", "example.com/registry@sha256:" + strings.Repeat("0", 64)}, kube...),
		"registry uninstall": append([]string{"registry", "uninstall"}, kube...),
	}
	before := filesUnder(t, dir)
	for cmdName, args := range commands {
		for what, approve := range badApprovals(strings.Repeat("dd2a", 16)) {
			t.Run(cmdName+" refuses "+what, func(t *testing.T) {
				res := run(t, append(slices.Clone(args), "--approve", approve)...)
				if res.code != ExitRefused || !strings.Contains(res.stderr, "12 to 64 lower-case hex digits") {
					t.Errorf("%s --approve %q: exit %d, stderr:\n%s\nwant exit 2 stating the rule", cmdName, approve, res.code, res.stderr)
				}
			})
		}
	}
	if after := filesUnder(t, dir); !slices.Equal(before, after) {
		t.Errorf("refused approvals changed the directory:\nbefore %q\nafter  %q", before, after)
	}
}

// filesUnder lists every path under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		out = append(out, p)
		return err
	})
	return out
}

// TestSecurityGlobApprovalAppliesNothing is hole 9 of issue 28 as it was
// found: with a plan stored, --approve 'dd2a********' (its first digits
// and stars) applied it. On the sandbox each bad approval of a stored plan
// now exits 2, the ConfigMap is never written and no run starts; the
// plan's own first 12 digits still apply it.
func TestSecurityGlobApprovalAppliesNothing(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{"settings.yaml": configMapYAML("settings", "mode", "fast")})
	p := r.plan(t)
	hex := strings.TrimPrefix(p.Hash, "sha256:")
	for what, approve := range badApprovals(hex) {
		res := run(t, "release", "apply", "--spec", r.spec, "--approve", approve)
		if res.code != ExitRefused || !strings.Contains(res.stderr, "12 to 64 lower-case hex digits") {
			t.Errorf("apply --approve %q (%s): exit %d, stderr:\n%s\nwant exit 2 stating the rule", approve, what, res.code, res.stderr)
		}
	}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get ConfigMap settings after refused approvals: %v, want not found", err)
	}
	if _, err := os.Stat(filepath.Join(r.stateDir, "runs")); !os.IsNotExist(err) {
		t.Errorf("a refused approval started a run (stat runs: %v)", err)
	}
	if res := run(t, "release", "apply", "--spec", r.spec, "--approve", hex[:12]); res.code != ExitOK {
		t.Fatalf("apply --approve of the plan's first 12 digits: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "settings", metav1.GetOptions{}); err != nil {
		t.Errorf("get ConfigMap settings after the approved apply: %v", err)
	}
}
