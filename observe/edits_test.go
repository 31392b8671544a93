package observe

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestFieldPathsNameLeaves(t *testing.T) {
	raw := `{"f:data":{"f:index.html":{},".":{}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}},"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:targetPort":{}}}},"f:metadata":{"f:finalizers":{"v:\"x\"":{}}}}`
	want := []string{"data.index.html", "metadata.finalizers[=x]", "spec.ports[port=80,protocol=TCP].targetPort", "spec.template.spec.containers[name=web].image"}
	if diff := cmp.Diff(want, FieldPaths([]byte(raw))); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if FieldPaths([]byte("not json")) != nil {
		t.Error("a set that does not parse yields paths")
	}
}

// The lens names who edited a declared object after the run, and which
// fields they own: not the release's own apply, not a writer of status or
// scale, not anyone before the run ended.
func TestReconcileNamesEditsAfterTheRun(t *testing.T) {
	a := fixtureArchive()
	after, before := metav1.NewTime(a.Ended.Add(time.Hour)), metav1.NewTime(a.Ended.Add(-time.Second))
	cm := live("v1", "ConfigMap", "shop", "config", nil)
	cm.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "piceli", Operation: metav1.ManagedFieldsOperationApply, Time: &after, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:mode":{}}}`)}},
		{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: &after, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:level":{}}}`)}},
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Time: &after, Subresource: "status"},
		{Manager: "setup-job", Operation: metav1.ManagedFieldsOperationUpdate, Time: &before},
	})
	rep := Reconcile(a, ClusterInfo{Same: true}, []Listing{{Kind: Kind{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, Namespace: "shop", Items: []*unstructured.Unstructured{cm}}})
	var got []Edit
	for _, o := range rep.Objects {
		if o.Object == "ConfigMap/shop/config" {
			got = o.Edits
		}
	}
	want := []Edit{{Manager: "kubectl-edit", Time: after.UTC().Format(time.RFC3339), Fields: []string{"data.level"}}}
	if diff := cmp.Diff(want, got); diff != "" || rep.Edited != 1 {
		t.Errorf("edited %d; edits (-want +got):\n%s", rep.Edited, diff)
	}
}
