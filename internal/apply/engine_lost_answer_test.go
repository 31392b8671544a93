package apply

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
)

// TestCompensateCoversAWriteWhoseAnswerWasLost fails the second wave of
// creates(a, b) with Options.Compensate, the write of b having reached
// the cluster although its answer says it failed: the API server timed out
// while still processing it, or the connection reset after the request was
// forwarded. Compensation must not leave b behind unreported: it undoes b
// (after settling it by reading the cluster) or names it in its notes.
//
// The fault answers the dry runs of b as well, so the run's own attempt to
// settle b by reading fails and the write stays in doubt, with no outcome
// journaled, until compensation settles it, as a resume would.
func TestCompensateCoversAWriteWhoseAnswerWasLost(t *testing.T) {
	tests := []struct {
		name   string
		answer error
	}{
		{
			name:   "a 504 Timeout: the server may still be processing the write",
			answer: apierrors.NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0),
		},
		{
			name:   "a connection reset after the request was forwarded",
			answer: &url.Error{Op: "Patch", URL: "https://127.0.0.1:6443/api/v1/namespaces/shop/configmaps/b", Err: syscall.ECONNRESET},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			c.answerTimes("patch", "b", -1, func(a clienttesting.Action) error {
				if _, _, err := c.patch(a); err != nil {
					t.Errorf("the fake cluster refused the write of b: %v", err)
				}
				return tt.answer
			})
			e := newEngine(t, c, Options{Compensate: true})

			_, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b"))
			var ce *CompensatedError
			if !errors.As(err, &ce) {
				t.Fatalf("Apply() = %v, want a *CompensatedError", err)
			}
			recs, _ := replayRun(t, e.StateDir, "run-1")
			noted := slices.ContainsFunc(ce.Notes, func(n string) bool { return strings.Contains(n, "ConfigMap/shop/b") })
			if b := c.configMap("b"); b != nil && !noted {
				t.Errorf("the run ended compensated with b (uid %s) still in the cluster and no note about it; journal:\n  %s\nnotes: %q",
					b.GetUID(), strings.Join(story(recs), "\n  "), ce.Notes)
			}
			if c.configMap("a") != nil {
				t.Errorf("a is still in the cluster after compensation")
			}
			for _, rec := range recs {
				if rec.Type == journal.Outcome && rec.Step == 1 && rec.Result == journal.ResultApplied {
					t.Errorf("outcome of b = applied, though the write's answer was an error")
				}
			}
		})
	}
}

// writesOf counts the patches of name sent for real, dry runs aside.
func writesOf(c *fakeCluster, name string) int {
	n := 0
	for _, a := range c.sent("patch", name) {
		if p, ok := a.(clienttesting.PatchActionImpl); !ok || len(p.PatchOptions.DryRun) == 0 {
			n++
		}
	}
	return n
}

// realWrite reports whether a is a patch that is not a dry run.
func realWrite(a clienttesting.Action) bool {
	p, ok := a.(clienttesting.PatchActionImpl)
	return ok && len(p.PatchOptions.DryRun) == 0
}

// answerWrites makes the first n real writes of name (every one when n < 0)
// answer fault; dry runs pass.
func answerWrites(c *fakeCluster, name string, n int, fault func(clienttesting.Action) error) {
	c.PrependReactor("patch", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		named, ok := a.(interface{ GetName() string })
		if !ok || named.GetName() != name || !realWrite(a) || n == 0 {
			return false, nil, nil
		}
		n--
		return true, nil, fault(a)
	})
}

// A write that landed but whose answer was lost (the connection reset after
// the request was forwarded) is settled by reading the cluster while the
// run goes on: it is journaled applied and never written again.
func TestALostAnswerIsSettledAndNotWrittenAgain(t *testing.T) {
	c := newFakeCluster()
	answerWrites(c, "b", 1, func(a clienttesting.Action) error {
		if _, _, err := c.patch(a); err != nil {
			t.Errorf("the fake cluster refused the write of b: %v", err)
		}
		return &url.Error{Op: "Patch", URL: "https://127.0.0.1:6443/api/v1/namespaces/shop/configmaps/b", Err: syscall.ECONNRESET}
	})
	e := newEngine(t, c, Options{})

	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b", "c")); err != nil {
		t.Fatalf("Apply() = %v, want nil: the lost answer is settled", err)
	}
	recs, st := replayRun(t, e.StateDir, "run-1")
	wantStory(t, recs, "intent 1 create", "settled 1 applied", "wave-ready 1")
	if got := writesOf(c, "b"); got != 1 {
		t.Errorf("b written %d times, want once", got)
	}
	if b := c.configMap("b"); b == nil || st.Steps[1].UID != string(b.GetUID()) {
		t.Errorf("step 1 = %+v, want applied with b's UID (b: %v)", st.Steps[1], b)
	}
}

// A 503 says nothing of whether the write was carried out: the run reads
// the cluster, finds it was not, journals a new intent and writes again.
func TestAWriteAnswered503IsSettledAndRetried(t *testing.T) {
	c := newFakeCluster()
	answerWrites(c, "b", 1, func(clienttesting.Action) error {
		return apierrors.NewServiceUnavailable("the server is shutting down")
	})
	e := newEngine(t, c, Options{})

	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b", "c")); err != nil {
		t.Fatalf("Apply() = %v, want nil", err)
	}
	recs, _ := replayRun(t, e.StateDir, "run-1")
	wantStory(t, recs, "intent 1 create", "settled 1 not-applied", "intent 1 create", "outcome 1 applied", "wave-ready 1")
	if got := writesOf(c, "b"); got != 2 {
		t.Errorf("b written %d times, want twice (the refused write and its retry)", got)
	}
}

// An answer lost on every retry leaves the step in doubt and fails the run
// (resume or compensation settles it later); the retries are bounded.
func TestAnAnswerLostEveryTimeLeavesTheStepInDoubt(t *testing.T) {
	c := newFakeCluster()
	answerWrites(c, "b", -1, func(clienttesting.Action) error {
		return apierrors.NewInternalError(errors.New("etcdserver: leader changed"))
	})
	e := newEngine(t, c, Options{})

	_, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b"))
	if err == nil || !strings.Contains(err.Error(), "(it may have been applied)") {
		t.Fatalf("Apply() = %v, want the step reported in doubt", err)
	}
	_, st := replayRun(t, e.StateDir, "run-1")
	if got := st.InDoubt(); !slices.Equal(got, []int{1}) {
		t.Errorf("in doubt = %v, want [1]", got)
	}
	if got := writesOf(c, "b"); got != 1+lostAnswerRetries {
		t.Errorf("b written %d times, want %d (first write and each retry)", got, 1+lostAnswerRetries)
	}
}

// wantStory checks that the journal tells seq in order, records between
// them allowed.
func wantStory(t *testing.T, recs []journal.Record, seq ...string) {
	t.Helper()
	got := story(recs)
	k := 0
	for _, line := range got {
		if k < len(seq) && line == seq[k] {
			k++
		}
	}
	if k < len(seq) {
		t.Errorf("journal lacks %q (in order from %q); journal:\n  %s", seq[k], seq[0], strings.Join(got, "\n  "))
	}
}
