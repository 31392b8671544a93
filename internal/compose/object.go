package compose

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/internal/object"
)

// checkObject requires apiVersion, kind and metadata.name.
func checkObject(origin string, obj map[string]any) error {
	for _, field := range [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}} {
		v, _, _ := unstructured.NestedString(obj, field...)
		if v == "" {
			return fmt.Errorf("object from %s has no %s", origin, joinField(field))
		}
	}
	return nil
}

func joinField(f []string) string {
	if len(f) == 2 {
		return f[0] + "." + f[1]
	}
	return f[0]
}

// rawDocument holds each manifest of a Document undecoded, so that numbers
// decode as int64 rather than float64.
type rawDocument struct {
	Objects []struct {
		Manifest json.RawMessage `json:"manifest"`
	} `json:"objects"`
}

// resultOf converts a composition document (and its raw bytes) into a
// Result, checking every object.
func resultOf(doc *app.Document, data []byte) (*Result, error) {
	var raw rawDocument
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode composition objects: %w", err)
	}
	if len(raw.Objects) != len(doc.Objects) {
		return nil, fmt.Errorf("decode composition objects: %d objects, want %d", len(raw.Objects), len(doc.Objects))
	}
	res := &Result{Components: doc.Components, Secrets: doc.Secrets}
	for i, o := range doc.Objects {
		obj, err := decodeManifest(o.Origin, raw.Objects[i].Manifest)
		if err != nil {
			return nil, err
		}
		res.Objects = append(res.Objects, object.Declared{Origin: o.Origin, DependsOn: o.DependsOn, Object: obj})
	}
	return res, nil
}

// decodeManifest decodes and checks one manifest.
func decodeManifest(origin string, data []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decode object from %s: %w", origin, err)
	}
	if err := checkObject(origin, m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}
