package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/plan"
)

// A plan whose every step is a no-op writes nothing and journals no step:
// its journal holds the run and its waves, and its revision records that
// nothing changed. A plan that changes something is not recorded so.
func TestANoOpPlanWritesNothingAndSaysSo(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b")); err != nil {
		t.Fatal(err)
	}
	var steps []plan.Step
	for _, name := range []string{"a", "b"} {
		live := c.configMap(name)
		s := updateStep(configMap(name, name+"-1"), live)
		s.Action = plan.NoOp
		steps = append(steps, s)
	}
	before := len(c.sent("patch", "a")) + len(c.sent("patch", "b"))
	if _, err := e.Apply(t.Context(), "run-2", inputOf(t, steps)); err != nil {
		t.Fatal(err)
	}
	if after := len(c.sent("patch", "a")) + len(c.sent("patch", "b")); after != before {
		t.Errorf("a no-op plan sent %d writes, want none", after-before)
	}
	recs, _ := replayRun(t, e.StateDir, "run-2")
	if diff := cmp.Diff([]string{"run-started", "wave-ready 0", "run-finished"}, story(recs)); diff != "" {
		t.Errorf("journal of a no-op run (-want +got):\n%s", diff)
	}
	var unchanged []bool
	for _, r := range revisions(t, e.StateDir) {
		unchanged = append(unchanged, r.Unchanged)
	}
	if diff := cmp.Diff([]bool{false, true}, unchanged); diff != "" {
		t.Errorf("revisions' Unchanged (-want +got):\n%s", diff)
	}
}
