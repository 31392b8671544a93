package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// TestApplyFinishesEveryWave runs a plan the fake cluster accepts whole: it
// shows the fakes work, and what a clean run leaves behind.
func TestApplyFinishesEveryWave(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	in := creates(t, "a", "b", "c")

	res, err := e.Apply(t.Context(), "run-1", in)
	if err != nil {
		t.Fatalf("Apply() = %v, want nil", err)
	}
	if diff := cmp.Diff(&Result{Run: "run-1", Status: journal.StatusFinished, Revision: 1}, res); diff != "" {
		t.Errorf("Apply() result (-want +got):\n%s", diff)
	}

	recs, st := replayRun(t, e.StateDir, "run-1")
	want := []string{
		"run-started",
		"intent 0 create", "outcome 0 applied", "wave-ready 0",
		"intent 1 create", "outcome 1 applied", "wave-ready 1",
		"intent 2 create", "outcome 2 applied", "wave-ready 2",
		"run-finished",
	}
	if diff := cmp.Diff(want, story(recs)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if st.Status != journal.StatusFinished || st.Plan != in.Plan.Hash || st.WavesReady != 3 {
		t.Errorf("Replay() = status %s, plan %s, %d waves ready; want finished, %s, 3", st.Status, st.Plan, st.WavesReady, in.Plan.Hash)
	}
	for i, name := range []string{"a", "b", "c"} {
		live := c.configMap(name)
		if live == nil {
			t.Fatalf("ConfigMap %s is not in the cluster", name)
		}
		got := st.Steps[i]
		if got.Status != journal.StepApplied || got.UID != string(live.GetUID()) || got.ResourceVersion != live.GetResourceVersion() {
			t.Errorf("step %d = %s uid %q rv %q, want applied uid %q rv %q", i, got.Status, got.UID, got.ResourceVersion, live.GetUID(), live.GetResourceVersion())
		}
		checkServerSideApply(t, c, name)
		// The outcome digests what the write left where the manifest sets
		// values, as a later plan observes it (plan.Settled.Fields).
		dig := plan.Digester{Key: testKey}
		if f := lastRecord(t, recs, journal.Outcome, i).Fields; f == "" || f != dig.Fields(in.Plan.Steps[i].Manifest, live) {
			t.Errorf("step %d outcome fields = %q, want the digest of the written values", i, f)
		}
	}

	revs := revisions(t, e.StateDir)
	if len(revs) != 1 {
		t.Fatalf("history.List() holds %d revisions, want 1", len(revs))
	}
	var refs []object.Ref
	for _, o := range revs[0].Objects {
		refs = append(refs, o.Ref)
	}
	wantRefs := []object.Ref{in.Plan.Steps[0].Ref, in.Plan.Steps[1].Ref, in.Plan.Steps[2].Ref}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("revision 1 objects (-want +got):\n%s", diff)
	}
	if r := revs[0]; r.Number != 1 || r.Plan != in.Plan.Hash || r.Run != "run-1" || r.Source != SourceApply || r.Outcome != string(journal.StatusFinished) {
		t.Errorf("revision = %d plan %s run %s source %q outcome %s, want 1 %s run-1 %q finished", r.Number, r.Plan, r.Run, r.Source, r.Outcome, in.Plan.Hash, SourceApply)
	}
}

// checkServerSideApply checks that the ConfigMap name was written by one
// server-side apply of the release's field manager, not forced, and
// conditional on no object existing (a create: see createOnly).
func checkServerSideApply(t *testing.T, c *fakeCluster, name string) {
	t.Helper()
	sent := c.sent("patch", name)
	if len(sent) != 1 {
		t.Fatalf("%d patches of %s sent, want 1", len(sent), name)
	}
	p := sent[0].(clienttesting.PatchActionImpl)
	o := p.PatchOptions
	if p.GetPatchType() != types.ApplyPatchType || o.FieldManager != testManager || (o.Force != nil && *o.Force) || len(o.DryRun) > 0 {
		t.Errorf("patch of %s = %s, options %+v; want an apply by %s, not forced, not a dry-run", name, p.GetPatchType(), o, testManager)
	}
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(p.GetPatch()); err != nil || u.GetResourceVersion() != createOnly {
		t.Errorf("patch of %s names resourceVersion %q (%v), want %s: a create never writes over an existing object", name, u.GetResourceVersion(), err, createOnly)
	}
}
