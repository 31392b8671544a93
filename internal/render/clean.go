package render

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// serverOwned are metadata fields the API server sets; a desired manifest
// never carries them, even when it was exported from a live cluster.
var serverOwned = []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// clean returns a copy of u without status, server-owned metadata and
// secret values.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	delete(c.Object, "status")
	for _, f := range serverOwned {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	if c.GetAPIVersion() == "v1" && c.GetKind() == "Secret" {
		redactSecret(c)
	}
	return c
}

// redactSecret removes the values of a Secret and records its keys in
// SecretKeysAnnotation, merged with keys the annotation already lists.
func redactSecret(u *unstructured.Unstructured) {
	keys := map[string]bool{}
	for _, f := range []string{"data", "stringData"} {
		m, _, _ := unstructured.NestedMap(u.Object, f)
		for k := range m {
			keys[k] = true
		}
		delete(u.Object, f)
	}
	ann := u.GetAnnotations()
	for _, k := range strings.Split(ann[SecretKeysAnnotation], ",") {
		if k != "" {
			keys[k] = true
		}
	}
	if len(keys) == 0 {
		return
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[SecretKeysAnnotation] = strings.Join(sortedKeys(keys), ",")
	u.SetAnnotations(ann)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
