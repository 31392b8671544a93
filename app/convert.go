package app

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/builtin"
)

// toManifest converts a typed object to its unstructured form, filling
// apiVersion and kind from client-go's scheme when TypeMeta is empty and
// dropping the empty fields Go structs always carry (creationTimestamp:
// null, status: {}).
func toManifest(obj runtime.Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert to unstructured: %w", err)
	}
	if m["kind"] == nil || m["apiVersion"] == nil {
		gvks, _, err := builtin.Scheme().ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return nil, fmt.Errorf("%T has no apiVersion and kind and is not in the client-go scheme", obj)
		}
		m["apiVersion"], m["kind"] = gvks[0].GroupVersion().String(), gvks[0].Kind
	}
	if _, _, err := builtin.Scheme().ObjectKinds(obj); err == nil {
		dropNulls(m)
	}
	prune(m, true)
	dropUnsetTargetPorts(m)
	return m, nil
}

// dropNulls removes, at every level, the null values Go writes for the nil
// pointers of a built-in kind (a gRPC probe's service, say). Only built-in
// kinds: a custom resource's free-form fields keep a null its author set,
// as the same object from YAML does.
func dropNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if c == nil {
				delete(t, k)
				continue
			}
			dropNulls(c)
		}
	case []any:
		for _, c := range t {
			dropNulls(c)
		}
	}
}

// noiseFields are struct fields Go always renders and that mean nothing
// when empty; they are dropped from typed objects only.
var noiseFields = []string{"spec", "strategy", "updateStrategy", "resources", "metadata"}

// prune removes null creationTimestamps and statuses holding only zero
// values at every level (pod and claim templates carry them too). With
// typed set it also drops empty noiseFields and a resource field
// reference's divisor "0", which a typed object's Go structs add but a
// hand-written manifest would not have. A CRD's subresources.status ({}
// turns the status subresource on) is kept.
func prune(v any, typed bool) {
	pruneUnder(v, typed, "")
}

// pruneUnder is prune of v, the value of key in its parent.
func pruneUnder(v any, typed bool, key string) {
	switch t := v.(type) {
	case map[string]any:
		if ts, ok := t["creationTimestamp"]; ok && ts == nil {
			delete(t, "creationTimestamp")
		}
		if typed {
			pruneTyped(t)
		}
		if st, ok := t["status"]; ok && isZero(st) && key != "subresources" {
			delete(t, "status")
		}
		for _, k := range noiseFields {
			if m, ok := t[k].(map[string]any); ok && typed && len(m) == 0 {
				delete(t, k)
			}
		}
		for k, child := range t {
			pruneUnder(child, typed, k)
		}
	case []any:
		for _, child := range t {
			pruneUnder(child, typed, key)
		}
	}
}

// pruneTyped drops what Go writes for an unset field of a typed object.
func pruneTyped(m map[string]any) {
	if ref, ok := m["resourceFieldRef"].(map[string]any); ok && ref["divisor"] == "0" {
		delete(ref, "divisor")
	}
}

// isZero reports whether v holds only zero values: nil, "", 0, false and
// maps or lists of them.
func isZero(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, c := range t {
			if !isZero(c) {
				return false
			}
		}
		return true
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	case bool:
		return !t
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}
