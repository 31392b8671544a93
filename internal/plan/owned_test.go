package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/journal"
)

func TestOwned(t *testing.T) {
	applied := samplePlan() // a create (no UID yet) and an update of UID "u"
	applied.Steps = append(applied.Steps, Step{Action: Delete, Observed: Observed{UID: "deleted"}})
	run1 := []journal.Record{
		{Type: journal.Intent, Step: 0},
		{Type: journal.Outcome, Step: 0, Result: journal.ResultApplied, UID: "created"},
		{Type: journal.Outcome, Step: 1, Result: journal.ResultFailed, UID: "refused"},
	}
	run2 := []journal.Record{
		{Type: journal.Settled, Step: 0, Result: journal.ResultApplied, UID: "settled"},
		{Type: journal.Settled, Step: 1, Result: journal.ResultNotApplied, UID: "absent"},
	}
	want := map[string]bool{"u": true, "created": true, "settled": true}
	if diff := cmp.Diff(want, Owned(applied, run1, run2)); diff != "" {
		t.Errorf("Owned() mismatch (-want +got):\n%s", diff)
	}
	if got := Owned(nil); len(got) != 0 {
		t.Errorf("Owned(nil) = %v, want none", got)
	}
}
