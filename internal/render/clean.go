package render

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// serverOwned are metadata fields the API server sets; a desired manifest
// never carries them, even when it was exported from a live cluster.
var serverOwned = []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// clean returns a copy of u without status and server-owned metadata.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	delete(c.Object, "status")
	for _, f := range serverOwned {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	return c
}

// Redacted returns u, or for a Secret a copy without its values and with
// its keys in SecretKeysAnnotation (merged with keys already listed there).
// Every manifest Piceli prints or writes passes through it.
func Redacted(u *unstructured.Unstructured) *unstructured.Unstructured {
	if !object.IsSecret(u) {
		return u
	}
	c := u.DeepCopy()
	redactSecret(c)
	return c
}

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
