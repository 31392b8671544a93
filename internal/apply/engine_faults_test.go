package apply

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/readiness"
)

// TestApplyJournalsARefusedWrite runs three waves of one create each, the
// server refusing the second, and reads what the journal keeps: the run
// failed at that step with the server's answer, the first wave applied, the
// third never attempted, and no revision recorded.
func TestApplyJournalsARefusedWrite(t *testing.T) {
	tests := []struct {
		name   string
		answer error
		is     func(error) bool
	}{
		{
			name:   "a 409 Conflict fails the run at the create it answers",
			answer: apierrors.NewConflict(configMapsKind, "b", errors.New("the object has been modified")),
			is:     apierrors.IsConflict,
		},
		{
			name: "a 422 Invalid fails the run at the create it answers",
			answer: apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "b", field.ErrorList{
				field.Invalid(field.NewPath("data", "value"), "b-1", "must be a number"),
			}),
			is: apierrors.IsInvalid,
		},
		{
			name:   "a 404 NotFound (its namespace gone) fails the run at the create it answers",
			answer: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, testNamespace),
			is:     apierrors.IsNotFound,
		},
		{
			name:   "a 429 TooManyRequests fails the run at the create it answers, not retried",
			answer: apierrors.NewTooManyRequests("the server is busy", 1),
			is:     apierrors.IsTooManyRequests,
		},
		{
			name:   "a 403 Forbidden (an admission webhook's denial) fails the run at the create it answers",
			answer: errRefused,
			is:     apierrors.IsForbidden,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			c.failOn("patch", "b", tt.answer)
			e := newEngine(t, c, Options{})

			res, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b", "c"))
			wantErr := "create ConfigMap/shop/b: " + tt.answer.Error()
			if err == nil || err.Error() != wantErr || !tt.is(err) {
				t.Fatalf("Apply() = %v, want %q wrapping the server's answer", err, wantErr)
			}
			if res == nil || res.Status != journal.StatusFailed || res.Revision != 0 {
				t.Errorf("Apply() result = %+v, want failed, no revision", res)
			}
			checkFailedAtSecondWave(t, c, e.StateDir, wantErr)
		})
	}
}

// checkFailedAtSecondWave checks the journal and the cluster after a run of
// creates(a, b, c) failed with wantErr at b.
func checkFailedAtSecondWave(t *testing.T, c *fakeCluster, stateDir, wantErr string) {
	t.Helper()
	recs, st := replayRun(t, stateDir, "run-1")
	want := []string{
		"run-started",
		"intent 0 create", "outcome 0 applied", "wave-ready 0",
		"intent 1 create", "outcome 1 failed",
		"run-failed",
	}
	if diff := cmp.Diff(want, story(recs)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if st.Status != journal.StatusFailed || st.Error != wantErr || st.WavesReady != 1 {
		t.Errorf("Replay() = status %s error %q, %d waves ready; want failed %q, 1", st.Status, st.Error, st.WavesReady, wantErr)
	}
	out := lastRecord(t, recs, journal.Outcome, 1)
	if out.Result != journal.ResultFailed || out.Error != wantErr || out.UID != "" {
		t.Errorf("outcome of step 1 = %s %q uid %q, want failed %q, no uid", out.Result, out.Error, out.UID, wantErr)
	}
	if !strings.HasPrefix(out.Error, "create ConfigMap/shop/b: ") {
		t.Errorf("outcome error %q does not name the step's action and object", out.Error)
	}
	a := c.configMap("a")
	if got := st.Steps[0]; a == nil || got.Status != journal.StepApplied || got.UID != string(a.GetUID()) {
		t.Errorf("step 0 = %+v, want applied with the live UID (live: %v)", got, a)
	}
	if got, seen := st.Steps[2]; seen {
		t.Errorf("step 2 of the third wave = %+v, want no record at all", got)
	}
	if sent := c.sent("patch", "c"); len(sent) != 0 {
		t.Errorf("%d writes of c sent, want none: its wave never started", len(sent))
	}
	if revs := revisions(t, stateDir); len(revs) != 0 {
		t.Errorf("history.List() = %d revisions, want none after a failed run", len(revs))
	}
}

// TestApplyFailsAWaveThatNeverBecomesReady makes the written LoadBalancer
// Service b (waited for until it has an address) unreadable (404 to every
// get), so its wave's readiness wait times out: the run fails with b
// applied but its wave not ready, so a resume waits for it again without
// writing it again.
func TestApplyFailsAWaveThatNeverBecomesReady(t *testing.T) {
	c := newFakeCluster()
	c.failOn("get", "b", apierrors.NewNotFound(configMapsKind, "b"))
	e := newEngine(t, c, Options{ReadyTimeout: 200 * time.Millisecond})

	res, err := e.Apply(t.Context(), "run-1", createsWithLoadBalancer(t, "a", "b", "c"))
	if !errors.Is(err, readiness.ErrTimeout) || !strings.Contains(err.Error(), "/shop/b in-progress: not found") || res.Status != journal.StatusFailed {
		t.Fatalf("Apply() = %+v, %v; want failed on a readiness timeout naming b", res, err)
	}
	recs, st := replayRun(t, e.StateDir, "run-1")
	want := []string{
		"run-started",
		"intent 0 create", "outcome 0 applied", "wave-ready 0",
		"intent 1 create", "outcome 1 applied",
		"run-failed",
	}
	if diff := cmp.Diff(want, story(recs)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if st.WavesReady != 1 || !st.Done(1) || st.Error != err.Error() {
		t.Errorf("Replay() = %d waves ready, step 1 done %v, error %q; want 1, true, %q", st.WavesReady, st.Done(1), st.Error, err)
	}
	if revs := revisions(t, e.StateDir); len(revs) != 0 {
		t.Errorf("history.List() = %d revisions, want none", len(revs))
	}
}

// TestApplyNamesAnUnreadyObjectAsThePlanDoes checks a readiness failure
// spells the object it waited for as plans, journals and events do,
// Kind/namespace/name, even when it was never read.
func TestApplyNamesAnUnreadyObjectAsThePlanDoes(t *testing.T) {
	c := newFakeCluster()
	c.failOn("get", "b", apierrors.NewNotFound(configMapsKind, "b"))
	e := newEngine(t, c, Options{ReadyTimeout: 200 * time.Millisecond})

	_, err := e.Apply(t.Context(), "run-1", createsWithLoadBalancer(t, "a", "b"))
	if err == nil || !strings.Contains(err.Error(), "\n  Service/shop/b ") {
		t.Errorf("Apply() = %v, want it to name Service/shop/b", err)
	}
}

// createsWithLoadBalancer is creates, with b a LoadBalancer Service: its
// readiness waits for an address, so its wave reads it after the write.
func createsWithLoadBalancer(t *testing.T, names ...string) Input {
	t.Helper()
	waves := make([][]plan.Step, len(names))
	for i, n := range names {
		u := configMap(n, n+"-1")
		if n == "b" {
			u = loadBalancer(n)
		}
		waves[i] = []plan.Step{createStep(u)}
	}
	return inputOf(t, waves...)
}

// A wave of objects whose write settles their readiness (ConfigMaps here)
// is not read again to wait for them; one that is not settled (a
// LoadBalancer Service without an address) is read until it is ready.
func TestAWaveReadsAgainOnlyWhatItsWritesLeftUnready(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{ReadyTimeout: 200 * time.Millisecond})
	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "c")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "c"} {
		if gets := c.sent("get", name); len(gets) != 0 {
			t.Errorf("%d gets of ConfigMap %s after its write; want none", len(gets), name)
		}
	}
	c = newFakeCluster()
	e = newEngine(t, c, Options{ReadyTimeout: 200 * time.Millisecond})
	_, err := e.Apply(t.Context(), "run-1", createsWithLoadBalancer(t, "b"))
	if !errors.Is(err, readiness.ErrTimeout) || len(c.sent("get", "b")) == 0 {
		t.Errorf("Apply(a LoadBalancer without an address) = %v after %d gets; want a readiness timeout after reading it", err, len(c.sent("get", "b")))
	}
}
