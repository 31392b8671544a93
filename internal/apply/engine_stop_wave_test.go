package apply

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/plan"
)

// A stop asked in the middle of one large wave is heeded between its
// writes: the run stops after the writes in flight, with most of the wave
// never sent, and a resume writes each of the rest exactly once.
func TestAStopInTheMiddleOfALargeWaveSendsNoMoreWrites(t *testing.T) {
	const n = 200
	c := newFakeCluster()
	e := newEngine(t, c, Options{Parallel: 4})
	var names []string
	var steps []plan.Step
	for i := range n {
		name := fmt.Sprintf("cm-%03d", i)
		names = append(names, name)
		steps = append(steps, createStep(configMap(name, "v")))
	}
	in := inputOf(t, steps)
	patches := func() int {
		total := 0
		for _, a := range c.Actions() {
			if a.GetVerb() == "patch" {
				total++
			}
		}
		return total
	}
	e.Options.StopAsked = func(context.Context) bool { return patches() >= 20 }
	res, err := e.Apply(t.Context(), "run-1", in)
	if !errors.Is(err, ErrStopped) || res.Status != journal.StatusStopped {
		t.Fatalf("Apply() = %v (status %s), want ErrStopped and a stopped run", err, res.Status)
	}
	_, st := replayRun(t, e.StateDir, "run-1")
	if d := st.InDoubt(); len(d) > 0 {
		t.Errorf("steps %v in doubt after the stop; want the unsent ones settled as not applied", d)
	}
	sent := patches()
	if sent < 20 || sent > 20+4 {
		t.Fatalf("%d of %d writes sent before the run stopped; want 20 and at most the 4 in flight", sent, n)
	}
	e.Options.StopAsked = nil
	if _, err := e.Resume(t.Context(), "run-1", in); err != nil {
		t.Fatalf("Resume() = %v", err)
	}
	for _, name := range names {
		if k := len(c.sent("patch", name)); k != 1 {
			t.Errorf("%s written %d times across the run and its resume, want 1", name, k)
		}
	}
}
