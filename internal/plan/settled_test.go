package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
)

func TestSettledBy(t *testing.T) {
	p := samplePlan() // a create of ConfigMap cfg and an update of Deployment web
	noop := Step{Ref: object.Ref{Kind: "ServiceAccount", Namespace: "shop", Name: "web"}, Action: NoOp, Desired: "d-sa",
		Observed: Observed{UID: "sa", ResourceVersion: "3", Fields: "f-sa"}}
	gone := Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "old"}, Action: Delete, Observed: Observed{UID: "old", ResourceVersion: "4"}}
	p.Steps = append(p.Steps, noop, gone)
	run := []journal.Record{
		{Type: journal.Intent, Step: 0},
		{Type: journal.Outcome, Step: 0, Result: journal.ResultApplied, UID: "c1", ResourceVersion: "10", Fields: "f-cfg"},
		{Type: journal.Outcome, Step: 1, Result: journal.ResultFailed, UID: "u", ResourceVersion: "7"},
		{Type: journal.Settled, Step: 1, Result: journal.ResultApplied, UID: "u", ResourceVersion: "12"}, // a later session
		{Type: journal.Outcome, Step: 3, Result: journal.ResultApplied},                                  // the delete
	}
	want := map[object.Ref]Settled{
		p.Steps[0].Ref: {UID: "c1", ResourceVersion: "10", Desired: p.Steps[0].Desired, Fields: "f-cfg"},
		p.Steps[1].Ref: {UID: "u", ResourceVersion: "12", Desired: p.Steps[1].Desired},
		noop.Ref:       {UID: "sa", ResourceVersion: "3", Desired: "d-sa", Fields: "f-sa"},
	}
	if d := cmp.Diff(want, SettledBy(p, run)); d != "" {
		t.Errorf("SettledBy() mismatch (-want +got):\n%s", d)
	}
	if got := SettledBy(nil, run); len(got) != 0 {
		t.Errorf("SettledBy(nil, run) = %v, want none", got)
	}
}
