package crdgen_test

import (
	"fmt"

	"github.com/pynenc/piceli/internal/crdgen"
)

// A CRD in, one package per group and served version out, with the
// kind's Go type and constructor.
func ExampleGenerate() {
	docs, _, err := crdgen.Decode("crd.yaml", []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              mode: {type: string, enum: [Fast, Slow]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := crdgen.Generate(crdgen.Input{Documents: docs})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range out.Packages {
		k := p.Kinds[0]
		fmt.Println(p.Dir, p.Name, k.Type, k.Constructor, k.Namespaced)
	}
	for _, f := range []string{"example.com/v1/doc.go", "example.com/v1/gadget.go"} {
		fmt.Println(f, len(out.Files[f]) > 0)
	}
	// Output:
	// example.com/v1 v1 Gadget NewGadget true
	// example.com/v1/doc.go true
	// example.com/v1/gadget.go true
}
