package compose

import (
	"strings"
	"testing"
)

// TestResultOfNamesABadManifest checks what a composition program's bad
// manifest reads as: the object's origin and the missing field, not the
// manifest quoted whole.
func TestResultOfNamesABadManifest(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     string
	}{
		{"a manifest without kind", `{"apiVersion":"v1","metadata":{"name":"x"}}`, "object from component web has no kind"},
		{"a manifest without name", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`, "object from component web has no metadata.name"},
		{"a null manifest", `null`, "object from component web has no apiVersion"},
		{"a manifest that is no object", `"x"`, "decode object from component web: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := `{"schema":"piceli.composition/v1","objects":[{"origin":"component web","manifest":` + tt.manifest + `}]}`
			doc, err := documentOf([]byte(out), nil, "")
			if err == nil {
				_, err = resultOf(doc)
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), `"apiVersion"`) {
				t.Errorf("load of %s: error = %v, want it to start with %q", tt.manifest, err, tt.want)
			}
		})
	}
}
