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
// nothing the plan does not declare is left behind.
func TestApplyKilledAtEveryFailpointIsResumed(t *testing.T) {
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
	for _, fp := range apply.Failpoints {
		t.Run(fp, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "", smallManifests())
			p := r.plan(t)
			armed := fmt.Sprintf("%s:%d", fp, max(hit[fp], 1))
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
		})
	}
}
