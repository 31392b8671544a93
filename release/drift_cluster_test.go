package release

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/plan"
)

// TestDriftNamesTheEditorAndAReclaimPlanPutsTheFieldBack applies three
// ConfigMaps, edits one as kubectl edit does and deletes another. Drift
// names the edited field with its editor and the deleted object; a plan
// without Reclaim is blocked by the edit, one with Reclaim takes the field
// back, and applying it (RunOptions left zero: the plan says) restores
// both, after which Drift finds nothing.
func TestDriftNamesTheEditorAndAReclaimPlanPutsTheFieldBack(t *testing.T) {
	path, ns := configMapRelease(t, 3)
	appliedTwice(t, path)
	ctx := sandboxtest.Context(t, 2*time.Minute)
	cms := sandboxtest.Cluster(t).Clientset.CoreV1().ConfigMaps(ns)
	if _, err := cms.Patch(ctx, "cm-0", types.MergePatchType, []byte(`{"data":{"index":"edited"}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "cm-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Drift(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Revision != 1 || len(d.Objects) != 2 {
		t.Fatalf("drift from revision %d: %+v; want cm-0 and cm-2 from revision 1", d.Revision, d.Objects)
	}
	edited, deleted := d.Objects[0], d.Objects[1]
	if edited.Ref.Name != "cm-0" || len(edited.Fields) != 1 || edited.Fields[0] != (plan.DriftedField{Path: "data.index", Manager: "kubectl-edit"}) {
		t.Errorf("edited object: %+v; want cm-0's data.index, by kubectl-edit", edited)
	}
	if deleted.Ref.Name != "cm-2" || !deleted.Deleted {
		t.Errorf("deleted object: %+v; want cm-2, deleted", deleted)
	}

	if p, err := r.Plan(ctx, PlanOptions{}); err == nil && len(p.Blocked()) == 0 {
		t.Fatal("a plan without Reclaim is not blocked by the edit")
	}
	p, err := r.Plan(ctx, PlanOptions{Reclaim: true})
	if err != nil || len(p.Blocked()) > 0 {
		t.Fatalf("plan with Reclaim: %v, blocked %v", err, p.Blocked())
	}
	if _, err := r.Apply(ctx, p.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := cms.Get(ctx, "cm-0", metav1.GetOptions{})
	if err != nil || cm.Data["index"] != "0" {
		t.Fatalf("cm-0 after the reclaiming run: %v, %v", cm.Data, err)
	}
	if d, err = r.Drift(ctx, PlanOptions{}); err != nil || d.Drifted() {
		t.Fatalf("drift after the run: %+v, %v; want none", d, err)
	}
}
