package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment whose image cannot be pulled (kwok reports ImagePullBackOff
// for it) fails the run after the readiness timeout with a diagnosis naming the pod, the container and the
// reason. With on_failure = "stop" the run ends failed and resumable; with
// "compensate" the objects it created are deleted again.
func TestApplyReadinessFailureIsDiagnosed(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	tests := []struct {
		policy string
		status journal.RunStatus
		undone bool
	}{
		{policy: "stop", status: journal.StatusFailed},
		{policy: "compensate", status: journal.StatusCompensated, undone: true},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "on_failure = \""+tt.policy+"\"\nready_timeout = \"8s\"\n", map[string]string{
				"cm.yaml":     configMapYAML("settings", "mode", "fast"),
				"deploy.yaml": unpullableDeploymentYAML(t, sb, "web"),
			})
			p := r.plan(t)

			res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			if res.code != ExitFailed {
				t.Fatalf("apply: exit %d, want %d\n%s", res.code, ExitFailed, res.stderr)
			}
			for _, want := range []string{"timed out after 8s", "Deployment/" + r.ns + "/web", "pod web-", `container web: ImagePullBackOff: Back-off pulling image "example.invalid/web:1"`} {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("apply stderr does not contain %q:\n%s", want, res.stderr)
				}
			}
			id, st := r.latestRun(t)
			if st.Status != tt.status {
				t.Errorf("journal of run %s says %s, want %s", id, st.Status, tt.status)
			}
			for i, s := range p.Steps {
				if s.Action != plan.Create {
					continue
				}
				gone := r.gone(t, s)
				if gone != tt.undone {
					t.Errorf("after the failed run, %s gone = %t, want %t", s.Ref, gone, tt.undone)
				}
				if tt.undone && st.Steps[i].Status != journal.StepCompensated {
					t.Errorf("journal: step %d (%s) is %s, want compensated", i, s.Ref, st.Steps[i].Status)
				}
			}
			if tt.undone && !strings.Contains(res.stderr, "this run's changes were undone") {
				t.Errorf("apply stderr does not say the run was undone:\n%s", res.stderr)
			}
		})
	}
}

// unpullableDeploymentYAML is deploymentYAML with a pod template kwok keeps
// in ImagePullBackOff, as a kubelet does with an image it cannot pull.
func unpullableDeploymentYAML(t *testing.T, sb *sandboxtest.Sandbox, name string) string {
	t.Helper()
	var annotations strings.Builder
	for k, v := range sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff) {
		fmt.Fprintf(&annotations, "        %s: %s\n", k, v)
	}
	const meta = "    metadata:\n      labels:\n"
	return strings.Replace(deploymentYAML(name, 1, ""), meta,
		"    metadata:\n      annotations:\n"+annotations.String()+"      labels:\n", 1)
}
