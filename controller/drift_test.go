package controller

import (
	"strings"
	"testing"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/plan"
)

func TestDriftNamesFieldsAndWhoChangedThem(t *testing.T) {
	edited := stepOf(plan.Update, "edited")
	edited.Reclaim = []plan.Conflict{{Manager: "kubectl-edit", Fields: []string{"data.value"}, Operation: plan.OperationUpdate}}
	edited.Changes = []plan.Change{{Path: "data.value", Kind: plan.Changed}, {Path: "metadata.labels.team", Kind: plan.Removed}}
	claimed := stepOf(plan.Update, "claimed")
	claimed.Conflicts = []plan.Conflict{{Manager: "other", Fields: []string{"data.value"}, Operation: plan.OperationApply}}
	claimed.Blocked = "field conflict"
	d := &plan.Plan{Steps: []plan.Step{stepOf(plan.NoOp, "same"), edited, claimed, stepOf(plan.Create, "deleted"), stepOf(plan.Delete, "pruned")}}

	found := driftOf(d, "sha256:abc")
	if found == nil || len(found.Objects) != 3 {
		t.Fatalf("drift %+v; want the edited, claimed and deleted objects (no no-op, no prune)", found)
	}
	want := "ConfigMap/edited data.value (by kubectl-edit), metadata.labels.team; ConfigMap/claimed data.value (applied by other); ConfigMap/deleted deleted"
	if got := found.Summary(); got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	if driftOf(&plan.Plan{Steps: []plan.Step{stepOf(plan.NoOp, "same")}}, "rev") != nil {
		t.Error("a diff of no-ops is drift")
	}
}

func TestDriftCorrectionOnlyRestores(t *testing.T) {
	blocked := stepOf(plan.Update, "claimed")
	blocked.Blocked = `field conflict: manager "other" owns data.value`
	for _, tc := range []struct {
		name  string
		steps []plan.Step
		why   string // "" corrects; else what the refusal names
	}{
		{"edits and deletions are restored", []plan.Step{stepOf(plan.Update, "a"), stepOf(plan.Create, "b"), stepOf(plan.NoOp, "c")}, ""},
		{"another applier's field", []plan.Step{stepOf(plan.Update, "a"), blocked}, `manager "other" owns data.value`},
		{"a delete", []plan.Step{stepOf(plan.Delete, "a")}, "would delete"},
		{"an adoption", []plan.Step{stepOf(plan.Adopt, "a")}, "would adopt"},
		{"a replace", []plan.Step{stepOf(plan.Replace, "a")}, "would replace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := uncorrectable(&plan.Plan{Steps: tc.steps})
			if (tc.why == "") != (got == "") || !strings.Contains(got, tc.why) {
				t.Fatalf("uncorrectable = %q; want %q", got, tc.why)
			}
		})
	}
}

func TestAFindingReportedBeforeKeepsItsTimeSoNothingIsWritten(t *testing.T) {
	st := &status{}
	d := &plan.Plan{Steps: []plan.Step{stepOf(plan.Create, "deleted")}}
	first := driftOf(d, "rev")
	st.drifted(first)
	again := driftOf(d, "rev")
	again.Since.Time = first.Since.Add(1e9)
	st.drifted(again)
	if !st.Drift.Since.Equal(&first.Since) {
		t.Errorf("the same drift found again moved Since from %v to %v", first.Since, st.Drift.Since)
	}
	if st.State != v1alpha1.StateDrifted {
		t.Errorf("state %s, want %s", st.State, v1alpha1.StateDrifted)
	}
	st.noDrift("rev")
	if st.Drift != nil || st.State != v1alpha1.StateReady {
		t.Errorf("after no drift: drift %+v, state %s", st.Drift, st.State)
	}
}
