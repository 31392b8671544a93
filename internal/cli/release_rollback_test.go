package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// "release rollback" plans the previous revision against the cluster, asks
// for approval (exit 3 and the hash), and once approved restores its
// objects; history then lists the two applies and the rollback.
func TestRollbackRestoresPreviousRevision(t *testing.T) {
	t.Parallel()
	r, hash := proposeRollbackOfTwoRevisions(t)
	r.assertLive(t, "slow", 2) // nothing applied yet
	res := run(t, "release", "rollback", "--spec", r.spec, "--approve", hash)
	if res.code != ExitOK {
		t.Fatalf("rollback --approve %s: exit %d\n%s", hash, res.code, res.stderr)
	}
	r.assertLive(t, "fast", 1)

	hist := run(t, "release", "history", "--spec", r.spec, "-o", "json")
	var got struct{ Revisions []history.Summary }
	if err := json.Unmarshal([]byte(hist.stdout), &got); err != nil || hist.code != ExitOK {
		t.Fatalf("history -o json: exit %d, %v\n%s", hist.code, err, hist.stdout)
	}
	var sources []string
	for _, rev := range got.Revisions {
		sources = append(sources, rev.Source)
	}
	if len(sources) != 3 || sources[0] != "apply" || sources[1] != "apply" || sources[2] != "rollback to 1" {
		t.Errorf("history sources = %q, want [apply apply \"rollback to 1\"]", sources)
	}
	if text := run(t, "release", "history", "--spec", r.spec); !regexp.MustCompile(`(?m)^3 .*rollback to 1`).MatchString(text.stdout) {
		t.Errorf("history does not list revision 3 as the rollback:\n%s", text.stdout)
	}
}

// proposeRollbackOfTwoRevisions applies two revisions of a small release
// (mode fast with 1 replica, then slow with 2) and asks for the rollback to
// revision 1, returning the hash to approve.
func proposeRollbackOfTwoRevisions(t *testing.T) (*testRelease, string) {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{
		"cm.yaml":     configMapYAML("settings", "mode", "fast"),
		"deploy.yaml": deploymentYAML("web", 1, ""),
	})
	r.apply(t, r.plan(t))
	r.setManifest(t, "cm.yaml", configMapYAML("settings", "mode", "slow"))
	r.setManifest(t, "deploy.yaml", deploymentYAML("web", 2, ""))
	r.apply(t, r.plan(t))
	r.assertLive(t, "slow", 2)
	propose := run(t, "release", "rollback", "--spec", r.spec)
	m := regexp.MustCompile(`--to 1 --approve ([0-9a-f]{12})`).FindStringSubmatch(propose.stderr)
	if propose.code != ExitApproval || m == nil {
		t.Fatalf("rollback without --approve: exit %d, stderr:\n%s\nwant exit 3 and the hash to approve", propose.code, propose.stderr)
	}
	// The printed plan names the command that applies it: rollback, since
	// "release apply" of a rollback plan is refused as stale.
	if hint := "apply it with: piceli release rollback --spec " + r.spec + " --to 1 --approve " + m[1]; !strings.Contains(propose.stdout, hint) {
		t.Errorf("rollback without --approve prints:\n%s\nwant the hint %q", propose.stdout, hint)
	}
	return r, m[1]
}

// assertLive checks the ConfigMap's mode and the Deployment's replicas.
func (r *testRelease) assertLive(t *testing.T, mode string, replicas int32) {
	t.Helper()
	cm, err := r.sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.sb.Clientset.AppsV1().Deployments(r.ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["mode"] != mode || *d.Spec.Replicas != replicas {
		t.Errorf("live: mode %q, replicas %d; want %q, %d", cm.Data["mode"], *d.Spec.Replicas, mode, replicas)
	}
}
