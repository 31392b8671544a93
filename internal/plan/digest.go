package plan

import (
	"encoding/base64"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/digest"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/objjson"
)

// Digester computes the keyed digests (digest.Of) a plan records, so plans
// can compare manifests and secret values without recording the values.
type Digester struct {
	Key []byte
}

// Of returns the keyed digest of v's JSON encoding.
func (d Digester) Of(v any) string {
	data, _ := objjson.Marshal(v)
	return d.digestOf(data)
}

// digestOf is Of of an encoding already made.
func (d Digester) digestOf(data []byte) string { return digest.Of(d.Key, data) }

// Fields is the digest of what live holds at every path the sealed desired
// manifest sets (Step.Observed.Fields), Secret values compared as keyed
// digests. The plan records it and the engine recomputes it before a retry,
// so both must use this one definition.
func (d Digester) Fields(sealedDesired map[string]any, live *unstructured.Unstructured) string {
	return d.Of(Touched(sealedDesired, d.sealedView(live)))
}

// OfSealed is Of(Sealed(u)) without the copy Sealed makes of an object
// that is not a Secret: digesting reads it and changes nothing.
func (d Digester) OfSealed(u *unstructured.Unstructured) string {
	return d.Of(d.sealedView(u))
}

// sealedView is Sealed for a caller that only reads the result: an object
// that is not a Secret is u's own content, not a copy; never change it.
func (d Digester) sealedView(u *unstructured.Unstructured) map[string]any {
	if !object.IsSecret(u) {
		return u.Object
	}
	return d.Sealed(u)
}

// Sealed returns a copy of a manifest in which every Secret value (data and
// stringData) is replaced by the keyed digest of its decoded bytes, so the
// same value digests alike in either field. Other objects are copied as is.
func (d Digester) Sealed(u *unstructured.Unstructured) map[string]any {
	c := u.DeepCopy()
	if !object.IsSecret(c) {
		return c.Object
	}
	data := secretValues(c)
	delete(c.Object, "stringData")
	if len(data) == 0 {
		delete(c.Object, "data")
		return c.Object
	}
	sealed := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		sealed[k] = digest.Of(d.Key, data[k])
	}
	c.Object["data"] = sealed
	return c.Object
}

// secretValues returns the decoded values of a Secret, stringData winning
// over data as the API server merges them.
func secretValues(u *unstructured.Unstructured) map[string][]byte {
	out := map[string][]byte{}
	data, _, _ := unstructured.NestedMap(u.Object, "data")
	for k, v := range data {
		s, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			b = []byte(s)
		}
		out[k] = b
	}
	str, _, _ := unstructured.NestedMap(u.Object, "stringData")
	for k, v := range str {
		s, _ := v.(string)
		out[k] = []byte(s)
	}
	return out
}
