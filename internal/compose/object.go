package compose

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/wire"
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

// resultOf checks every object of a composition document and returns the
// document as a Result.
func resultOf(doc *wire.Document) (*Result, error) {
	for _, o := range doc.Objects {
		if err := checkObject(o.Origin, o.Object.Object); err != nil {
			return nil, err
		}
	}
	return &Result{Objects: doc.Objects, Components: doc.Components, Secrets: doc.Secrets,
		Charts: doc.Charts, Kustomizations: doc.Kustomizations}, nil
}
