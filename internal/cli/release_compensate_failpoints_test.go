package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A compensating run killed with SIGKILL between its undos is finished by
// "release resume": the journal stays readable, ends compensated, and the
// objects the run created are gone.
func TestCompensationKilledIsFinishedByResume(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	for _, fp := range []string{apply.FailAfterCompIntent, apply.FailAfterCompOutcome} {
		t.Run(fp, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "on_failure = \"compensate\"\nready_timeout = \"5s\"\n", map[string]string{
				"cm-a.yaml":   configMapYAML("a", "mode", "fast"),
				"cm-b.yaml":   configMapYAML("b", "mode", "fast"),
				"deploy.yaml": unpullableDeploymentYAML(t, sb, "web"),
			})
			p := r.plan(t)
			armed := fmt.Sprintf("%s:2", fp)
			proc := startPiceli(t, armed, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			if got := proc.wait(t, time.Minute); got != "killed" {
				t.Fatalf("apply with %s=%s: %s, want killed; output:\n%s", apply.FailpointEnv, armed, got, proc.out.String())
			}

			res := run(t, "release", "resume", "--spec", r.spec)
			if res.code != ExitFailed || !strings.Contains(res.stderr, "this run's changes were undone") {
				t.Errorf("resume of the interrupted undo: exit %d, stderr:\n%s\nwant exit 1 saying the changes were undone", res.code, res.stderr)
			}
			id, st := r.latestRun(t)
			if st.Status != journal.StatusCompensated {
				t.Errorf("journal of run %s says %s, want compensated", id, st.Status)
			}
			for i, s := range p.Steps {
				if s.Action != plan.Create {
					continue
				}
				if !r.gone(t, s) || st.Steps[i].Status != journal.StepCompensated {
					t.Errorf("%s: gone %t, journal %s; want gone and compensated", s.Ref, r.gone(t, s), st.Steps[i].Status)
				}
			}
		})
	}
}
