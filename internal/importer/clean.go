package importer

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// serverOwned are the metadata fields the API server sets.
var serverOwned = []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// clean removes from u, in place, what the server owns and what an import
// must not carry: status, server metadata, kubectl's last-applied
// annotation (a Secret's holds its values) and the release label render
// sets. Empty labels and annotations go too.
func clean(u *unstructured.Unstructured) {
	delete(u.Object, "status")
	for _, f := range serverOwned {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	dropMeta(u, "annotations", lastApplied)
	dropMeta(u, "labels", object.ReleaseLabel)
	for _, f := range []string{"labels", "annotations"} {
		if m, ok, _ := unstructured.NestedMap(u.Object, "metadata", f); ok && len(m) == 0 {
			unstructured.RemoveNestedField(u.Object, "metadata", f)
		}
	}
}

// forgetSecretValues keeps a Secret's keys and drops its values, right
// after it is read, so that no later step can leak one.
func forgetSecretValues(u *unstructured.Unstructured) {
	if !object.IsSecret(u) {
		return
	}
	dropMeta(u, "annotations", lastApplied)
	for _, f := range []string{"data", "stringData"} {
		m, ok := u.Object[f].(map[string]any)
		if !ok {
			continue
		}
		for k := range m {
			m[k] = ""
		}
	}
}
