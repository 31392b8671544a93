package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// ignored are paths whose differences are the server's business, not the
// release's: status and server-set metadata.
var ignored = []string{
	"status",
	"metadata.managedFields",
	"metadata.resourceVersion",
	"metadata.generation",
	"metadata.uid",
	"metadata.creationTimestamp",
	"metadata.selfLink",
}

// Diff returns the fields that differ between a live object and the object
// the server would store after applying the desired one (a server-side
// dry-run result), ignoring status and server-set metadata. Paths are
// dotted, list items keyed by name where items have one ("spec.template.
// spec.containers[name=web].image"). Values under a Secret's data are never
// recorded. The result is sorted by path.
func Diff(live, result map[string]any) []Change {
	secret := isSecret(live) || isSecret(result)
	before, after := leaves(live), leaves(result)
	var out []Change
	for _, p := range unionKeys(before, after) {
		if isIgnored(p) {
			continue
		}
		if c, ok := compare(p, before, after); ok {
			out = append(out, hide(c, secret))
		}
	}
	return out
}

// isSecret applies object.IsSecret to a manifest map.
func isSecret(m map[string]any) bool {
	return object.IsSecret(&unstructured.Unstructured{Object: m})
}

func compare(p string, before, after map[string]any) (Change, bool) {
	b, inB := before[p]
	a, inA := after[p]
	switch {
	case !inB:
		return Change{Path: p, Kind: Added, To: a}, true
	case !inA:
		return Change{Path: p, Kind: Removed, From: b}, true
	case !reflect.DeepEqual(a, b):
		return Change{Path: p, Kind: Changed, From: b, To: a}, true
	}
	return Change{}, false
}

func hide(c Change, secret bool) Change {
	if secret && (strings.HasPrefix(c.Path, "data.") || strings.HasPrefix(c.Path, "stringData.")) {
		c.From, c.To, c.Hidden = nil, nil, true
	}
	return c
}

func isIgnored(p string) bool {
	for _, i := range ignored {
		if p == i || strings.HasPrefix(p, i+".") || strings.HasPrefix(p, i+"[") {
			return true
		}
	}
	return false
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// leaves flattens an object into path → value. Maps recurse; lists of
// named maps recurse keyed by name; other lists and scalars are leaves.
// Empty maps are leaves too, so adding "{}" shows.
func leaves(obj map[string]any) map[string]any {
	out := map[string]any{}
	walk("", obj, out)
	return out
}

func walk(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && prefix != "" {
			out[prefix] = t
		}
		for k, e := range t {
			walk(join(prefix, k), e, out)
		}
	case []any:
		if names, ok := itemNames(t); ok {
			for i, e := range t {
				walk(fmt.Sprintf("%s[name=%s]", prefix, names[i]), e, out)
			}
			return
		}
		out[prefix] = t
	default:
		out[prefix] = t
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// itemNames returns each item's name when every item is a map with a
// distinct string "name".
func itemNames(items []any) ([]string, bool) {
	names := make([]string, len(items))
	seen := map[string]bool{}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		n, ok := m["name"].(string)
		if !ok || seen[n] {
			return nil, false
		}
		names[i], seen[n] = n, true
	}
	return names, len(items) > 0
}

// Touched returns the live values at every path the desired manifest sets
// (nil where live has none). Its digest is what a plan observed of the
// fields it touches.
func Touched(desired, live map[string]any) map[string]any {
	want, have := leaves(desired), leaves(live)
	out := make(map[string]any, len(want))
	for p := range want {
		out[p] = have[p]
	}
	return out
}
