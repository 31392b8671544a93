package observe

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Edit is a write to a declared object after the archive's run ended, by
// a field manager that updated it (kubectl edit or scale, a PATCH, a
// PUT) rather than applied it: drift the lens sees from the object's
// managedFields alone, without comparing values (which would take a
// dry-run, a request the lens never makes). A writer of a subresource
// (status, scale) is not an edit of what the release declared.
type Edit struct {
	Manager string `json:"manager"`
	Time    string `json:"time"` // when it last wrote, RFC 3339
	// Fields are the fields the manager owns, by path ("data.key",
	// "spec.template.spec.containers[name=web].image"), at most
	// maxEditFields.
	Fields []string `json:"fields"`
	// More counts the fields left out.
	More int `json:"more,omitempty"`
}

// maxEditFields bounds the fields an Edit lists.
const maxEditFields = 50

// editsOf lists the edits of u after ended, oldest first.
func editsOf(u *unstructured.Unstructured, ended time.Time) []Edit {
	var out []Edit
	for _, e := range u.GetManagedFields() {
		if e.Subresource != "" || e.Operation != metav1.ManagedFieldsOperationUpdate || e.Time == nil || !e.Time.Time.After(ended) {
			continue
		}
		ed := Edit{Manager: e.Manager, Time: e.Time.UTC().Format(time.RFC3339)}
		if e.FieldsV1 != nil {
			ed.Fields = FieldPaths(e.FieldsV1.Raw)
		}
		if len(ed.Fields) > maxEditFields {
			ed.More = len(ed.Fields) - maxEditFields
			ed.Fields = ed.Fields[:maxEditFields]
		}
		out = append(out, ed)
	}
	slices.SortStableFunc(out, func(a, b Edit) int { return strings.Compare(a.Time, b.Time) })
	return out
}

// FieldPaths turns a managedFields entry's fieldsV1 set into dotted
// paths of its leaves, sorted: "f:data" → "data", a list item keyed
// "k:{"name":"web"}" → "[name=web]", a set value "v:x" → "[=x]", an
// index "i:0" → "[0]". A set that does not parse yields none.
func FieldPaths(raw []byte) []string {
	var set map[string]any
	if json.Unmarshal(raw, &set) != nil {
		return nil
	}
	var out []string
	walkFields(set, "", &out)
	slices.Sort(out)
	return out
}

func walkFields(set map[string]any, prefix string, out *[]string) {
	leaf := true
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if k == "." {
			continue
		}
		leaf = false
		child, _ := set[k].(map[string]any)
		walkFields(child, prefix+segment(k, prefix == ""), out)
	}
	if leaf && prefix != "" {
		*out = append(*out, prefix)
	}
}

// segment is one fieldsV1 key as a path segment.
func segment(k string, first bool) string {
	kind, name, _ := strings.Cut(k, ":")
	switch kind {
	case "f":
		if first {
			return name
		}
		return "." + name
	case "k":
		var keys map[string]any
		if json.Unmarshal([]byte(name), &keys) != nil {
			return "[" + name + "]"
		}
		var parts []string
		for _, key := range slices.Sorted(maps.Keys(keys)) {
			v, _ := json.Marshal(keys[key])
			parts = append(parts, key+"="+strings.Trim(string(v), `"`))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case "v":
		return "[=" + strings.Trim(name, `"`) + "]"
	case "i":
		return "[" + name + "]"
	}
	return "." + k
}
