package crdgen

import (
	"github.com/pynenc/piceli/internal/manifest"
)

// Decode reads the CustomResourceDefinitions of a YAML stream or JSON
// document (List kinds expanded); name is used in origins ("crds.yaml:12")
// and errors. Objects of other kinds are skipped and counted, so a bundle
// of CRDs and the operator's Deployment can be read as it is.
func Decode(name string, data []byte) (docs []Document, skipped int, err error) {
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return nil, 0, err
	}
	for _, o := range objs {
		if o.Object.GetKind() != "CustomResourceDefinition" || o.Object.GroupVersionKind().Group != "apiextensions.k8s.io" {
			skipped++
			continue
		}
		docs = append(docs, Document{Origin: o.Origin, Object: o.Object.Object})
	}
	return docs, skipped, nil
}
