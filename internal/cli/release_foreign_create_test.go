package cli

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A PodDisruptionBudget the plan creates, which another team creates
// themselves while the run waits between waves, is never written by the
// run: the create is refused naming the object and its manager, the
// journal records the step failed, and whether the run stops (and is
// resumed) or compensates, their object keeps its UID, labels and
// resourceVersion, and no field of the release's manager.
func TestCreateNeverTakesOverAForeignObject(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	tests := []struct {
		name, onFailure string
		minAvailable    int // their budget's; the release's is 1
	}{
		// The same spec: no field conflict, so only the create's
		// precondition stands in the way.
		{name: "stop, the same spec", onFailure: "stop", minAvailable: 1},
		{name: "stop, a conflicting spec", onFailure: "stop", minAvailable: 2},
		{name: "compensate, the same spec", onFailure: "compensate", minAvailable: 1},
		{name: "compensate, a conflicting spec", onFailure: "compensate", minAvailable: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, fmt.Sprintf("on_failure = %q\n", tt.onFailure), map[string]string{
				"cm.yaml":  configMapYAML("first", "mode", "fast"),
				"pdb.yaml": pdbYAML("shared-pdb", 1),
			})
			p := r.plan(t)
			cm, pdb := stepIndex(t, p, "ConfigMap"), stepIndex(t, p, "PodDisruptionBudget")
			cmWave := waveOf(p, cm)
			if cmWave >= waveOf(p, pdb) {
				t.Fatalf("the plan creates the ConfigMap in wave %d and the budget in wave %d, want the budget later", cmWave, waveOf(p, pdb))
			}
			armed := fmt.Sprintf("%s:%d:5s", apply.FailAfterWaveReady, cmWave+1)
			proc := startPiceli(t, armed, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			r.waitForJournal(t, "the ConfigMap's wave ready", func(st journal.State) bool { return st.WavesReady > cmWave })
			theirs := createForeignPDB(t, sb, r.ns, "shared-pdb", tt.minAvailable)

			if got := proc.wait(t, time.Minute); got != "exit 1" {
				t.Fatalf("apply: %s, want exit 1; output:\n%s", got, proc.out.String())
			}
			for _, want := range []string{"create PodDisruptionBudget/" + r.ns + "/shared-pdb: it exists already", "managed by other-team", string(theirs.UID)} {
				if !strings.Contains(proc.out.String(), want) {
					t.Errorf("apply output does not say %q:\n%s", want, proc.out.String())
				}
			}
			id, st := r.latestRun(t)
			if w := writes(t, r.stateDir, id); st.Steps[pdb].Status != journal.StepFailed || w[pdb] != 0 {
				t.Errorf("journal of run %s: the budget's step %s with %d applied writes, want failed with none", id, st.Steps[pdb].Status, w[pdb])
			}
			switch tt.onFailure {
			case "stop":
				if st.Status != journal.StatusFailed || r.gone(t, p.Steps[cm]) {
					t.Errorf("run %s %s, ConfigMap gone %v; want failed, the ConfigMap kept", id, st.Status, r.gone(t, p.Steps[cm]))
				}
				res := run(t, "release", "resume", "--spec", r.spec)
				if res.code != ExitFailed || !strings.Contains(res.stderr, "managed by other-team") {
					t.Errorf("release resume: exit %d, stderr:\n%s\nwant exit 1 refusing the create again", res.code, res.stderr)
				}
			case "compensate":
				if st.Status != journal.StatusCompensated || st.Steps[cm].Status != journal.StepCompensated || !r.gone(t, p.Steps[cm]) {
					t.Errorf("run %s %s, ConfigMap %s, gone %v; want compensated, compensated, gone", id, st.Status, st.Steps[cm].Status, r.gone(t, p.Steps[cm]))
				}
			}
			assertForeignUntouched(t, sb, theirs)
		})
	}
}

func pdbYAML(name string, minAvailable int) string {
	return fmt.Sprintf("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: %s\nspec:\n  minAvailable: %d\n  selector:\n    matchLabels:\n      app: web\n", name, minAvailable)
}

// createForeignPDB creates, as the field manager other-team, a budget
// labelled as theirs, and returns it as created.
func createForeignPDB(t *testing.T, sb *sandboxtest.Sandbox, ns, name string, minAvailable int) *policyv1.PodDisruptionBudget {
	t.Helper()
	min := intstr.FromInt32(int32(minAvailable))
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"team": "other"}},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &min,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
	pdbs := sb.Clientset.PolicyV1().PodDisruptionBudgets(ns)
	out, err := pdbs.Create(t.Context(), pdb, metav1.CreateOptions{FieldManager: "other-team"})
	if err != nil {
		t.Fatalf("create their PodDisruptionBudget/%s/%s: %v", ns, name, err)
	}
	// The disruption controller writes the budget's status once: wait for
	// it, so that what follows is compared with the settled object.
	sandboxtest.Eventually(t, 20*time.Second, "their budget's status", func(ctx context.Context) (bool, error) {
		out, err = pdbs.Get(ctx, name, metav1.GetOptions{})
		return err == nil && out.Status.ObservedGeneration == out.Generation, err
	})
	return out
}

// assertForeignUntouched checks that their object was neither written nor
// replaced: the same UID, resourceVersion and labels (no release label),
// and no field manager but theirs and the status's.
func assertForeignUntouched(t *testing.T, sb *sandboxtest.Sandbox, theirs *policyv1.PodDisruptionBudget) {
	t.Helper()
	live, err := sb.Clientset.PolicyV1().PodDisruptionBudgets(theirs.Namespace).Get(t.Context(), theirs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("their PodDisruptionBudget/%s/%s: %v", theirs.Namespace, theirs.Name, err)
	}
	if live.UID != theirs.UID || live.ResourceVersion != theirs.ResourceVersion || !maps.Equal(live.Labels, theirs.Labels) {
		t.Errorf("their budget is uid %s rv %s labels %v, want it untouched: uid %s rv %s labels %v", live.UID, live.ResourceVersion, live.Labels, theirs.UID, theirs.ResourceVersion, theirs.Labels)
	}
	if _, ok := live.Labels[object.ReleaseLabel]; ok {
		t.Errorf("their budget carries the release label %s", object.ReleaseLabel)
	}
	for _, m := range live.ManagedFields {
		if m.Manager != "other-team" && m.Subresource != "status" {
			t.Errorf("their budget has fields managed by %s (%s)", m.Manager, m.Operation)
		}
	}
}

// stepIndex returns the index of p's only step of kind.
func stepIndex(t *testing.T, p *plan.Plan, kind string) int {
	t.Helper()
	found := -1
	for i, s := range p.Steps {
		if s.Ref.Kind == kind {
			if found >= 0 {
				t.Fatalf("the plan has more than one %s", kind)
			}
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("the plan has no %s", kind)
	}
	return found
}

// waveOf returns the wave of p that holds step i.
func waveOf(p *plan.Plan, i int) int {
	for n, w := range p.Waves {
		for _, j := range w.Nodes {
			if j == i {
				return n
			}
		}
	}
	return -1
}
