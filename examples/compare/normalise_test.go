package compare_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// normalise reduces each object to what the three tools must agree on, as
// docs/comparison.md lists:
//   - each tool's own labels and annotations go (app.kubernetes.io/managed-by,
//     piceli.dev/*, helm.sh/*), and with them metadata.namespace, which Helm
//     leaves to install time;
//   - a Secret keeps its name and the names of its keys, never values (Piceli
//     renders none; Helm and Kustomize render what they generated);
//   - defaults the API server would set anyway and Piceli writes out go:
//     protocol TCP, restartPolicy Always, a Service targetPort equal to its
//     port, Secret type Opaque.
func normalise(t *testing.T, objs []*unstructured.Unstructured) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(objs))
	for i, u := range objs {
		o := u.DeepCopy().Object
		if u.GetKind() == "Secret" {
			o = secretShape(u)
		}
		dropDefaults(o)
		metadata(o)
		out[i] = viaJSON(t, o)
	}
	return out
}

// viaJSON gives every number one type (float64), whichever decoder read it.
func viaJSON(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// secretShape is a Secret as name and sorted key names.
func secretShape(u *unstructured.Unstructured) map[string]any {
	var keys []string
	if listed := u.GetAnnotations()["piceli.dev/secret-keys"]; listed != "" {
		keys = strings.Split(listed, ",")
	}
	for _, field := range []string{"data", "stringData"} {
		m, _, _ := unstructured.NestedMap(u.Object, field)
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keyList := make([]any, len(keys))
	for i, k := range keys {
		keyList[i] = k
	}
	return map[string]any{
		"apiVersion": u.GetAPIVersion(), "kind": "Secret", "keys": keyList,
		"metadata": map[string]any{"name": u.GetName(), "labels": toAny(u.GetLabels())},
	}
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// metadata drops tool-specific labels and annotations at every level (the
// object, pod templates, claim templates) and the namespace.
func metadata(o map[string]any) {
	walk(o, func(m map[string]any) {
		if meta, ok := m["metadata"].(map[string]any); ok {
			delete(meta, "namespace")
			for _, field := range []string{"labels", "annotations"} {
				set, _ := meta[field].(map[string]any)
				for k := range set {
					if k == "app.kubernetes.io/managed-by" || strings.HasPrefix(k, "piceli.dev/") || strings.HasPrefix(k, "helm.sh/") {
						delete(set, k)
					}
				}
				if len(set) == 0 {
					delete(meta, field)
				}
			}
		}
	})
}

// dropDefaults removes values equal to the API server's defaults.
func dropDefaults(o map[string]any) {
	if o["kind"] == "Secret" && o["type"] == "Opaque" {
		delete(o, "type")
	}
	walk(o, func(m map[string]any) {
		if m["protocol"] == "TCP" {
			delete(m, "protocol")
		}
		if m["restartPolicy"] == "Always" {
			delete(m, "restartPolicy")
		}
		if port, ok := m["port"]; ok && m["targetPort"] != nil && equalNumber(port, m["targetPort"]) {
			delete(m, "targetPort")
		}
	})
}

func equalNumber(a, b any) bool {
	num := func(v any) (float64, bool) {
		switch n := v.(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, true
		case int:
			return float64(n), true
		}
		return 0, false
	}
	x, ok1 := num(a)
	y, ok2 := num(b)
	return ok1 && ok2 && x == y
}

// walk calls f on every map in v, depth first.
func walk(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, c := range x {
			walk(c, f)
		}
	case []any:
		for _, c := range x {
			walk(c, f)
		}
	}
}
