package cli

import (
	"regexp"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A rollback killed halfway is finished by "release resume": the run
// remembers it rolls back to revision 1, so resume rebuilds revision 1's
// objects instead of refusing because the composition renders revision 2.
func TestKilledRollbackIsFinishedByResume(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{
		"cm.yaml":     configMapYAML("settings", "mode", "fast"),
		"deploy.yaml": deploymentYAML("web", 1, ""),
	})
	r.apply(t, r.plan(t))
	r.setManifest(t, "cm.yaml", configMapYAML("settings", "mode", "slow"))
	r.setManifest(t, "deploy.yaml", deploymentYAML("web", 2, ""))
	r.apply(t, r.plan(t))

	propose := run(t, "release", "rollback", "--spec", r.spec)
	m := regexp.MustCompile(`--to 1 --approve ([0-9a-f]{12})`).FindStringSubmatch(propose.stderr)
	if propose.code != ExitApproval || m == nil {
		t.Fatalf("rollback without --approve: exit %d\n%s", propose.code, propose.stderr)
	}
	p := startPiceli(t, apply.FailAfterOutcome+":1", "release", "rollback", "--spec", r.spec, "--approve", m[1])
	if how := p.wait(t, time.Minute); how != "killed" {
		t.Fatalf("rollback with a failpoint ended %s, want killed\n%s", how, p.out.String())
	}
	res := run(t, "release", "resume", "--spec", r.spec)
	if res.code != ExitOK {
		t.Fatalf("resume of the rollback: exit %d\n%s", res.code, res.stderr)
	}
	r.assertLive(t, "fast", 1)
	revs, err := history.List(r.stateDir)
	if err != nil || len(revs) != 3 || revs[2].Source != apply.RollbackSource(1) {
		t.Fatalf("history after the resumed rollback: %d revisions (err %v), want the third from %q", len(revs), err, apply.RollbackSource(1))
	}
}
