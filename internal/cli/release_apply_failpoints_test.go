package cli

import (
	"fmt"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// An apply killed with SIGKILL at any named failpoint is completed by
// "release resume": every object exists, no step is written twice, and
// nothing the plan does not declare is left behind. So with local state
// and with the state shared through the cluster.
func TestApplyKilledAtEveryFailpointIsResumed(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	// Which hit of each failpoint kills the run, so that most die midway
	// through the waves: three ConfigMaps, a Service, a Deployment (the
	// test's namespace exists already).
	hit := map[string]int{
		apply.FailAfterIntent:     1, // the ConfigMaps' intents are durable, none written
		apply.FailAfterWrite:      2, // a ConfigMap written, its outcome missing
		apply.FailAfterOutcome:    2,
		apply.FailBeforeWaveReady: 3, // the Deployment written, not yet ready
		apply.FailAfterWaveReady:  2, // ConfigMaps and Service done
	}
	// Both state modes: local (the spec says nothing) and shared through
	// the cluster, where the run also pushes its journal as it goes.
	for _, mode := range []struct{ name, extra string }{{"local", ""}, {"cluster", sharedState}} {
		for _, fp := range apply.Failpoints {
			t.Run(mode.name+"/"+fp, func(t *testing.T) {
				t.Parallel()
				killAndResume(t, sb, mode.extra, fp, hit[fp])
			})
		}
	}
}

// killAndResume kills an apply of a small release (extra lines in its
// [release]) at the hit-th pass through failpoint fp, resumes it and
// checks that every step was applied once.
func killAndResume(t *testing.T, sb *sandboxtest.Sandbox, extra, fp string, hit int) {
	t.Helper()
	r := newRelease(t, sb, extra, smallManifests())
	p := r.plan(t)
	armed := fmt.Sprintf("%s:%d", fp, max(hit, 1))
	proc := startPiceli(t, armed, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if got := proc.wait(t, time.Minute); got != "killed" {
		t.Fatalf("apply with %s=%s: %s, want killed; output:\n%s", apply.FailpointEnv, armed, got, proc.out.String())
	}
	_, st := r.latestRun(t)
	if st.Status != journal.StatusRunning {
		t.Fatalf("journal of the killed run says %s, want running (interrupted)", st.Status)
	}

	res := run(t, "release", "resume", "--spec", r.spec)
	if res.code != ExitOK {
		t.Fatalf("release resume: exit %d\n%s\nkilled apply's output:\n%s", res.code, res.stderr, proc.out.String())
	}
	r.assertFinished(t, p)
}
