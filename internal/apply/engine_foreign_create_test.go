package apply

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

// TestCreateNeverWritesOverAForeignObject runs creates(a, b, c), c
// failing, while someone else creates their own b once wave 0 is ready:
// the create of b is refused by the server (see createOnly) with an
// *ExistsError naming b's managers, the journal records it failed with no
// UID, and whether the run stops or compensates, their b is never written,
// labelled or deleted. (An unconditional create adopted their b, and the
// compensation of c's failure deleted it.)
func TestCreateNeverWritesOverAForeignObject(t *testing.T) {
	tests := []struct {
		name       string
		compensate bool
		wantTail   []string // the journal after b's intent
		wantA      bool     // a is in the cluster afterwards
	}{
		{
			name:     "a run that stops on failure fails at b",
			wantTail: []string{"outcome 1 failed", "run-failed"},
			wantA:    true,
		},
		{
			name: "a run that compensates undoes a and leaves b alone", compensate: true,
			wantTail: []string{"outcome 1 failed", "compensate-started", "compensate-intent 0", "compensate-outcome 0 applied", "compensated"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{Compensate: tt.compensate})
			var theirs *unstructured.Unstructured
			e.Options.AfterWave = func(_ context.Context, wave int) error {
				if wave == 0 {
					theirs = seedForeign(t, c, "b")
				}
				return nil
			}

			c.failOn("patch", "c", errRefused)

			_, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b", "c"))
			checkUntouched(t, c, theirs)
			checkRefusedCreate(t, err, theirs)
			if tt.compensate && !errors.As(err, new(*CompensatedError)) {
				t.Errorf("Apply() = %v, want a *CompensatedError", err)
			}
			recs, st := replayRun(t, e.StateDir, "run-1")
			if diff := cmp.Diff(tt.wantTail, story(recs[5:])); diff != "" {
				t.Errorf("journal after b's intent (-want +got):\n%s", diff)
			}
			if out := lastRecord(t, recs, journal.Outcome, 1); out.UID != "" || st.Steps[1].Status != journal.StepFailed {
				t.Errorf("b's outcome = uid %q, step %s; want no uid, failed", out.UID, st.Steps[1].Status)
			}
			if got := c.configMap("a") != nil; got != tt.wantA {
				t.Errorf("a in the cluster afterwards: %v, want %v", got, tt.wantA)
			}
			if n := len(c.sent("patch", "c")); n != 0 {
				t.Errorf("%d patches of c sent, want none: the run ends at b", n)
			}
		})
	}
}

// TestResumeNeverWritesOverAForeignObject resumes a run that failed at a
// create because someone else's object was there: the create is refused
// again, and the object still untouched.
func TestResumeNeverWritesOverAForeignObject(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	theirs := seedForeign(t, c, "b")
	in := creates(t, "a", "b")
	if _, err := e.Apply(t.Context(), "run-1", in); err == nil {
		t.Fatalf("Apply() = nil, want the create of b refused")
	}

	res, err := e.Resume(t.Context(), "run-1", in)
	checkRefusedCreate(t, err, theirs)
	if res == nil || res.Status != journal.StatusFailed {
		t.Errorf("Resume() = %+v, want failed", res)
	}
	checkUntouched(t, c, theirs)
}

// seedForeign stores a ConfigMap of the test namespace as another team
// made it: their label and value, applied by other-team, and a status
// writer's entry in its managedFields (which no error names as a maker).
// It returns the object as stored.
func seedForeign(t *testing.T, c *fakeCluster, name string) *unstructured.Unstructured {
	t.Helper()
	u := configMap(name, "theirs")
	u.SetLabels(map[string]string{"team": "other"})
	c.seed(t, u, "other-team")
	c.edit(t, "ConfigMap", name, func(u *unstructured.Unstructured) {
		status := metav1.ManagedFieldsEntry{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"}
		u.SetManagedFields(append([]metav1.ManagedFieldsEntry{status}, u.GetManagedFields()...))
	})
	return c.configMap(name)
}

// checkRefusedCreate checks err is the refusal of the create of theirs:
// an *ExistsError with its UID and manager, in a message naming both.
func checkRefusedCreate(t *testing.T, err error, theirs *unstructured.Unstructured) {
	t.Helper()
	var ee *ExistsError
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v, want an *ExistsError", err)
	}
	if ee.UID != string(theirs.GetUID()) || !cmp.Equal(ee.Managers, []string{"other-team"}) {
		t.Errorf("ExistsError = uid %q, managers %q; want %q, [other-team]", ee.UID, ee.Managers, theirs.GetUID())
	}
	want := "create ConfigMap/shop/b: it exists already: someone else created it since the plan (uid " + string(theirs.GetUID()) + ", managed by other-team); it was not written"
	var ce *CompensatedError
	if errors.As(err, &ce) {
		err = ce.Cause
	}
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// checkUntouched checks the object theirs is stored exactly as it was
// seeded, and that no delete it would pass was sent.
func checkUntouched(t *testing.T, c *fakeCluster, theirs *unstructured.Unstructured) {
	t.Helper()
	stored := c.configMap(theirs.GetName())
	if stored == nil {
		t.Errorf("%s (uid %s) is gone: their object was deleted", theirs.GetName(), theirs.GetUID())
	} else if diff := cmp.Diff(theirs.Object, stored.Object); diff != "" {
		t.Errorf("%s afterwards (-seeded +stored):\n%s", theirs.GetName(), diff)
	}
	for _, a := range c.sent("delete", theirs.GetName()) {
		pre := a.(clienttesting.DeleteActionImpl).DeleteOptions.Preconditions
		if pre == nil || pre.UID == nil || *pre.UID == theirs.GetUID() {
			t.Errorf("a delete of %s that their object (uid %s) passes was sent: preconditions %+v", theirs.GetName(), theirs.GetUID(), pre)
		}
	}
}

// TestReplaceNeverWritesOverAForeignObject replaces a, someone else
// creating their own a once the old one is deleted: the create half of
// the replace is refused like any create, and their a left untouched.
func TestReplaceNeverWritesOverAForeignObject(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	live := c.seed(t, configMap("a", "a-1"), testManager)
	s := updateStep(configMap("a", "a-2"), live)
	s.Action = plan.Replace
	var theirs *unstructured.Unstructured
	c.answerTimes("delete", "a", 1, func(clienttesting.Action) error {
		c.remove("a")
		theirs = seedForeign(t, c, "a")
		return nil
	})

	_, err := e.Apply(t.Context(), "run-1", inputOf(t, []plan.Step{s}))
	var ee *ExistsError
	if !errors.As(err, &ee) || ee.UID != string(theirs.GetUID()) {
		t.Fatalf("Apply() = %v, want an *ExistsError of their a (uid %s)", err, theirs.GetUID())
	}
	checkUntouched(t, c, theirs)
}
