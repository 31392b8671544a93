package apply

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// TestCompensateUndoesACreate fails the second wave of creates(a, b) with
// Options.Compensate: a, created by the first wave, is deleted only while
// it keeps the UID the run gave it, and the journal records the undo.
func TestCompensateUndoesACreate(t *testing.T) {
	c := newFakeCluster()
	c.failOn("patch", "b", errRefused)
	e := newEngine(t, c, Options{Compensate: true})

	res, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b"))
	var ce *CompensatedError
	if !errors.As(err, &ce) || !apierrors.IsForbidden(err) || len(ce.Notes) != 0 {
		t.Fatalf("Apply() = %v, want a *CompensatedError caused by the refusal, without notes", err)
	}
	if want := "create ConfigMap/shop/b: " + errRefused.Error(); ce.Cause.Error() != want {
		t.Errorf("CompensatedError.Cause = %q, want %q", ce.Cause, want)
	}
	if res.Status != journal.StatusCompensated || res.Revision != 0 {
		t.Errorf("Apply() result = %+v, want compensated, no revision", res)
	}

	recs, st := replayRun(t, e.StateDir, "run-1")
	want := []string{
		"run-started",
		"intent 0 create", "outcome 0 applied", "wave-ready 0",
		"intent 1 create", "outcome 1 failed",
		"compensate-started", "compensate-intent 0", "compensate-outcome 0 applied", "compensated",
	}
	if diff := cmp.Diff(want, story(recs)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if st.Status != journal.StatusCompensated || st.Compensating || st.Steps[0].Status != journal.StepCompensated {
		t.Errorf("Replay() = %s compensating %v, step 0 %s; want compensated, false, compensated", st.Status, st.Compensating, st.Steps[0].Status)
	}
	if c.configMap("a") != nil {
		t.Errorf("a is still in the cluster after its create was undone")
	}
	checkGuardedDelete(t, c, "a", lastRecord(t, recs, journal.Outcome, 0).UID)
	if revs := revisions(t, e.StateDir); len(revs) != 0 {
		t.Errorf("history.List() = %d revisions, want none", len(revs))
	}
}

// checkGuardedDelete checks the one delete of name sent was conditional on
// uid, the one the run's outcome recorded.
func checkGuardedDelete(t *testing.T, c *fakeCluster, name, uid string) {
	t.Helper()
	sent := c.sent("delete", name)
	if len(sent) != 1 {
		t.Fatalf("%d deletes of %s sent, want 1", len(sent), name)
	}
	opts := sent[0].(clienttesting.DeleteActionImpl).DeleteOptions
	if pre := opts.Preconditions; uid == "" || pre == nil || pre.UID == nil || string(*pre.UID) != uid {
		t.Errorf("delete of %s preconditions = %+v, want UID %q", name, pre, uid)
	}
	if p := opts.PropagationPolicy; p == nil || *p != metav1.DeletePropagationBackground {
		t.Errorf("delete of %s propagation = %v, want Background", name, p)
	}
}

// TestCompensateLeavesWhatItCannotUndoSafely checks undos that must not
// happen: an object recreated by someone else, an update with no earlier
// revision to restore. Each is journaled skipped, reported in Notes, and
// the object left as it was.
func TestCompensateLeavesWhatItCannotUndoSafely(t *testing.T) {
	tests := []struct {
		name      string
		arrange   func(t *testing.T, c *fakeCluster) Input // fails at b
		after     func(t *testing.T, c *fakeCluster)       // after wave 0
		wantNote  string
		wantValue string // a's data.value afterwards
	}{
		{
			name:    "a create recreated by someone else is not deleted",
			arrange: func(t *testing.T, c *fakeCluster) Input { return creates(t, "a", "b") },
			after: func(t *testing.T, c *fakeCluster) {
				c.remove("a")
				c.seed(t, configMap("a", "theirs"), "kubectl")
			},
			wantNote:  "ConfigMap/shop/a: left as is: recreated by someone else since this run created it",
			wantValue: "theirs",
		},
		{
			name: "an update with no earlier revision is not restored",
			arrange: func(t *testing.T, c *fakeCluster) Input {
				live := c.seed(t, configMap("a", "a-1"), testManager)
				return inputOf(t, []plan.Step{updateStep(configMap("a", "a-2"), live)}, []plan.Step{createStep(configMap("b", "b-1"))})
			},
			wantNote:  "ConfigMap/shop/a: left as is: no earlier revision holds it (or its earlier values), so there is nothing to restore",
			wantValue: "a-2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			in := tt.arrange(t, c)
			c.failOn("patch", "b", errRefused)
			e := newEngine(t, c, Options{Compensate: true})
			if tt.after != nil {
				e.Options.AfterWave = func(context.Context, int) error {
					tt.after(t, c)
					return nil
				}
			}

			_, err := e.Apply(t.Context(), "run-1", in)
			var ce *CompensatedError
			if !errors.As(err, &ce) {
				t.Fatalf("Apply() = %v, want a *CompensatedError", err)
			}
			if diff := cmp.Diff([]string{tt.wantNote}, ce.Notes); diff != "" {
				t.Errorf("CompensatedError.Notes (-want +got):\n%s", diff)
			}
			recs, st := replayRun(t, e.StateDir, "run-1")
			undo := lastRecord(t, recs, journal.CompensateOutcome, 0)
			if undo.Result != journal.ResultSkipped || st.Status != journal.StatusCompensated || st.Steps[0].Status != journal.StepApplied {
				t.Errorf("undo of step 0 = %s, run %s, step %s; want skipped, compensated, applied", undo.Result, st.Status, st.Steps[0].Status)
			}
			if got := valueOf(c.configMap("a")); got != tt.wantValue {
				t.Errorf("a's value afterwards = %q, want %q", got, tt.wantValue)
			}
		})
	}
}

// TestCompensateRestoresAnUpdate fails the second wave after the first
// updated a: a is restored to the release's previous revision (as
// Input.Previous gives it), by an apply
// conditional on the resourceVersion the run's write returned.
func TestCompensateRestoresAnUpdate(t *testing.T) {
	c := newFakeCluster()
	old := configMap("a", "a-1")
	live := c.seed(t, old, testManager)
	in := inputOf(t, []plan.Step{updateStep(configMap("a", "a-2"), live)}, []plan.Step{createStep(configMap("b", "b-1"))})
	e := newEngine(t, c, Options{Compensate: true})
	// The caller (package release) rebuilds the previous revision's objects.
	in.Previous = func() (map[object.Ref]*unstructured.Unstructured, error) {
		return map[object.Ref]*unstructured.Unstructured{in.Plan.Steps[0].Ref: old.DeepCopy()}, nil
	}
	c.failOn("patch", "b", errRefused)

	_, err := e.Apply(t.Context(), "run-1", in)
	var ce *CompensatedError
	if !errors.As(err, &ce) || len(ce.Notes) != 0 {
		t.Fatalf("Apply() = %v, want a *CompensatedError without notes", err)
	}
	recs, st := replayRun(t, e.StateDir, "run-1")
	if undo := lastRecord(t, recs, journal.CompensateOutcome, 0); undo.Result != journal.ResultApplied || st.Steps[0].Status != journal.StepCompensated {
		t.Errorf("undo of step 0 = %s, step %s; want applied, compensated", undo.Result, st.Steps[0].Status)
	}
	if got := valueOf(c.configMap("a")); got != "a-1" {
		t.Errorf("a's value afterwards = %q, want the previous revision's a-1", got)
	}
	patches := c.sent("patch", "a")
	if len(patches) != 2 {
		t.Fatalf("%d patches of a sent, want the update and its undo", len(patches))
	}
	var undo unstructured.Unstructured
	if err := undo.UnmarshalJSON(patches[1].(clienttesting.PatchActionImpl).GetPatch()); err != nil {
		t.Fatal(err)
	}
	if rv := lastRecord(t, recs, journal.Outcome, 0).ResourceVersion; undo.GetResourceVersion() != rv || rv == "" {
		t.Errorf("undo applied on resourceVersion %q, want %q, the one the update returned", undo.GetResourceVersion(), rv)
	}
	if revs := revisions(t, e.StateDir); len(revs) != 0 {
		t.Errorf("history.List() = %d revisions, want none: a compensated run is no revision", len(revs))
	}
}

// TestResumeFinishesAnInterruptedCompensation resumes a run that died
// after journaling an undo's intent: the undo is done again, not the
// run's writes, and the run ends compensated.
func TestResumeFinishesAnInterruptedCompensation(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{Compensate: true})
	in := creates(t, "a", "b")
	a := c.seed(t, in.Desired[in.Plan.Steps[0].Ref], testManager)
	interrupted(t, e.StateDir, "run-1",
		journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: in.Plan.Hash},
		journal.Record{Type: journal.Intent, Step: 0, Action: "create", Ref: &in.Plan.Steps[0].Ref},
		journal.Record{Type: journal.Outcome, Step: 0, Result: journal.ResultApplied, UID: string(a.GetUID()), ResourceVersion: a.GetResourceVersion()},
		journal.Record{Type: journal.WaveReady, Wave: 0},
		journal.Record{Type: journal.Intent, Step: 1, Action: "create", Ref: &in.Plan.Steps[1].Ref},
		journal.Record{Type: journal.Outcome, Step: 1, Result: journal.ResultFailed, Error: "create ConfigMap/shop/b: boom"},
		journal.Record{Type: journal.CompensateStarted},
		journal.Record{Type: journal.CompensateIntent, Step: 0, Ref: &in.Plan.Steps[0].Ref},
	)

	res, err := e.Resume(t.Context(), "run-1", in)
	var ce *CompensatedError
	if !errors.As(err, &ce) || !errors.Is(err, errInterruptedUndo) || res.Status != journal.StatusCompensated {
		t.Fatalf("Resume() = %+v, %v; want compensated, a *CompensatedError naming the interruption", res, err)
	}
	recs, st := replayRun(t, e.StateDir, "run-1")
	want := []string{"resumed", "compensate-started", "compensate-outcome 0 applied", "compensated"}
	if diff := cmp.Diff(want, story(recs[8:])); diff != "" {
		t.Errorf("journal from the resume on (-want +got):\n%s", diff)
	}
	if st.Status != journal.StatusCompensated || st.Steps[0].Status != journal.StepCompensated {
		t.Errorf("Replay() = %s, step 0 %s; want compensated, compensated", st.Status, st.Steps[0].Status)
	}
	if c.configMap("a") != nil {
		t.Errorf("a is still in the cluster")
	}
	checkGuardedDelete(t, c, "a", string(a.GetUID()))
	if n := writes(c.sent("patch", "b")); n != 0 {
		t.Errorf("%d writes of b sent, want none: a compensation never writes forward", n)
	}
}

// valueOf returns a ConfigMap's data.value, or "" for none.
func valueOf(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	v, _, _ := unstructured.NestedString(u.Object, "data", "value")
	return v
}
