package app

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A CRD added as it is keeps subresources.status: {}, which turns on its
// status subresource (dropping it as an empty status left custom
// resources whose status no operator could write), while an object's own
// empty status is still dropped.
func TestForeignObjectsKeepACRDsStatusSubresource(t *testing.T) {
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gizmos.example.com"},
		"spec": map[string]any{"versions": []any{map[string]any{
			"name": "v1", "subresources": map[string]any{"status": map[string]any{}},
		}}},
		"status": map[string]any{},
	}
	a := New("demo")
	a.Unstructured(&unstructured.Unstructured{Object: crd})
	c, err := a.Composition(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Objects()[0].Object
	versions, _, _ := unstructured.NestedSlice(got.Object, "spec", "versions")
	status, found := versions[0].(map[string]any)["subresources"].(map[string]any)["status"]
	if !found || status == nil {
		t.Errorf("subresources = %v, want status: {} kept", versions[0].(map[string]any)["subresources"])
	}
	if _, has := got.Object["status"]; has {
		t.Errorf("the CRD's own empty status was kept: %v", got.Object)
	}
}
