package cli

import (
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
)

// A rollback killed halfway is finished by "release resume": the run
// remembers it rolls back to revision 1, so resume rebuilds revision 1's
// objects instead of refusing because the composition renders revision 2.
func TestKilledRollbackIsFinishedByResume(t *testing.T) {
	t.Parallel()
	r, hash := proposeRollbackOfTwoRevisions(t)
	p := startPiceli(t, apply.FailAfterOutcome+":1", "release", "rollback", "--spec", r.spec, "--approve", hash)
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
