package plan_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// An undeclared object of the release that a finalizer holds in deletion
// was planned for deletion at every plan. It is now kept as "deleting",
// with the finalizers named, and never deleted again.
func TestPruneKeepsAnObjectHeldByItsFinalizers(t *testing.T) {
	f := example(t, "hello")
	cm := f.labelled("ConfigMap", f.ns, "held")
	cm.SetFinalizers([]string{"example.com/hold"})
	f.applyAll(t)
	f.apply(t, cm)
	res := f.sb.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(f.ns)
	t.Cleanup(func() {
		res.Patch(t.Context(), "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	uid := f.uid(t, "configmaps", cm)
	if err := res.Delete(t.Context(), "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	in := f.input
	in.Prune, in.Owned, in.Previous = true, map[string]bool{uid: true}, []history.Object{revisionObject(cm, "configmaps")}
	p := (&fixture{sb: f.sb, client: f.client, ns: f.ns, input: in}).plan(t, plan.Options{})
	for _, s := range p.Steps {
		if s.Action == plan.Delete {
			t.Errorf("the plan deletes %s again", s.Ref)
		}
	}
	want := []plan.Kept{{Ref: object.RefOf(cm), UID: uid, Reason: plan.KeepDeleting, Finalizers: []string{"example.com/hold"}}}
	if diff := cmp.Diff(want, p.Kept); diff != "" {
		t.Fatalf("plan.Kept (-want +got):\n%s", diff)
	}
	if got := p.Kept[0].Explain(); !strings.Contains(got, "deleting (finalizers: example.com/hold)") {
		t.Errorf("Kept.Explain() = %q, want it to name the finalizer", got)
	}
}
