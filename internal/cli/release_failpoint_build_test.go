package cli

import (
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Failpoints exist only in a binary built with -tags piceli_failpoints:
// with apply.FailpointEnv armed, that build dies by SIGKILL where the
// failpoint says, and a build without the tag ignores the variable and
// applies the release.
func TestFailpointKillsOnlyTaggedBuild(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	tagged := piceliBinary(t)
	untagged, err := buildPiceli(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	builds := []struct {
		name, path, want string
		check            func(r *testRelease, t *testing.T, p *plan.Plan)
	}{
		{name: "built with -tags piceli_failpoints", path: tagged, want: "killed", check: (*testRelease).assertKilledBeforeWrites},
		{name: "built without the tag", path: untagged, want: "exit 0", check: (*testRelease).assertFinished},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "", smallManifests())
			p := r.plan(t)
			proc := startBinary(t, b.path, apply.FailAfterRunStarted, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			if got := proc.wait(t, time.Minute); got != b.want {
				t.Fatalf("apply with %s=%s: %s, want %s; output:\n%s", apply.FailpointEnv, apply.FailAfterRunStarted, got, b.want, proc.out.String())
			}
			b.check(r, t, p)
		})
	}
}

// assertKilledBeforeWrites checks that the release's latest run of p was
// journaled as started and never closed, and that nothing it creates exists.
func (r *testRelease) assertKilledBeforeWrites(t *testing.T, p *plan.Plan) {
	t.Helper()
	id, st := r.latestRun(t)
	if st.Status != journal.StatusRunning || st.Plan != p.Hash {
		t.Fatalf("journal of the killed run %s: status %s of plan %s, want running (interrupted) of %s", id, st.Status, st.Plan, p.Hash)
	}
	for _, s := range p.Steps {
		if s.Action == plan.Create && !r.gone(t, s) {
			t.Errorf("%s exists after a run killed %s", s.Ref, apply.FailAfterRunStarted)
		}
	}
}
