package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// reads counts the GETs and LISTs sent so far.
func (c *fakeCluster) reads() int {
	n := 0
	for _, a := range c.Actions() {
		if v := a.GetVerb(); v == "get" || v == "list" {
			n++
		}
	}
	return n
}

// noOps plans the objects named names, as they are live in c, as no-ops.
func noOps(c *fakeCluster, names ...string) []plan.Step {
	var steps []plan.Step
	for _, name := range names {
		s := updateStep(configMap(name, name+"-1"), c.configMap(name))
		s.Action = plan.NoOp
		steps = append(steps, s)
	}
	return steps
}

// A run that writes nothing takes the readiness of the objects the
// approval check read as ready (Input.Current) from that check: it reads
// nothing itself, and still journals each wave ready. An object the check
// did not find ready is read as before.
func TestARunThatWritesNothingTakesReadinessFromTheApprovalCheck(t *testing.T) {
	tests := []struct {
		name      string
		current   map[string]bool
		wantReads bool
	}{
		{name: "every object ready at the check: no read", current: map[string]bool{"a": true, "b": true}},
		{name: "one object not ready at the check: read", current: map[string]bool{"a": true, "b": false}, wantReads: true},
		{name: "no readings from a check: read", wantReads: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b")); err != nil {
				t.Fatal(err)
			}
			in := inputOf(t, noOps(c, "a"), noOps(c, "b"))
			if tt.current != nil {
				in.Current = map[object.Ref]bool{}
				for name, ready := range tt.current {
					in.Current[object.RefOf(configMap(name, ""))] = ready
				}
			}
			before := c.reads()
			if _, err := e.Apply(t.Context(), "run-2", in); err != nil {
				t.Fatal(err)
			}
			if got := c.reads() - before; (got > 0) != tt.wantReads {
				t.Errorf("the no-op run sent %d reads; want reads: %v", got, tt.wantReads)
			}
			recs, _ := replayRun(t, e.StateDir, "run-2")
			if diff := cmp.Diff([]string{"run-started", "wave-ready 0", "wave-ready 1", "run-finished"}, story(recs)); diff != "" {
				t.Errorf("journal of the no-op run (-want +got):\n%s", diff)
			}
		})
	}
}

// Once a run has written a step, the cluster is no longer as the approval
// check read it: every later wave reads its objects, those the check found
// ready included.
func TestAfterAWriteEveryWaveReadsItsObjects(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b")); err != nil {
		t.Fatal(err)
	}
	in := inputOf(t, []plan.Step{updateStep(configMap("a", "a-2"), c.configMap("a"))}, noOps(c, "b"))
	in.Current = map[object.Ref]bool{object.RefOf(configMap("a", "")): true, object.RefOf(configMap("b", "")): true}
	before := len(c.sent("get", "b"))
	if _, err := e.Apply(t.Context(), "run-2", in); err != nil {
		t.Fatal(err)
	}
	if got := len(c.sent("get", "b")) - before; got == 0 {
		t.Error("the wave after a write did not read b, which the approval check had found ready")
	}
}
