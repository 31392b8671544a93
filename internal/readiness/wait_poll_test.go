package readiness

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The objects a poll keeps from a LIST are its items' own, not pointers
// into the list: the waiter keeps each target's last object until the
// wait ends, and a pointer into list.Items would keep the whole LIST
// alive with it, one LIST for every poll that saw a target turn current.
func TestAPollKeepsItemsNotTheirList(t *testing.T) {
	list := &unstructured.UnstructuredList{}
	for _, name := range []string{"a", "b"} {
		u := unstructured.Unstructured{Object: map[string]any{"kind": "ConfigMap"}}
		u.SetName(name)
		list.Items = append(list.Items, u)
	}
	found := byName(list)
	list.Items[0], list.Items[1] = unstructured.Unstructured{}, unstructured.Unstructured{}
	for _, name := range []string{"a", "b"} {
		if u := found[name]; u == nil || u.GetName() != name {
			t.Errorf("byName(list)[%q] = %v after the list's items were cleared, want the object %s", name, u, name)
		}
	}
}
