// Package builtin is the scheme of Kubernetes' built-in kinds: the kinds
// client-go registers itself, and no other. client-go's global scheme is
// not that: any linked library may add to it when it starts (the Helm SDK
// adds CustomResourceDefinition), so what counts as built-in would depend
// on what a binary links. A composition, the importer and the generator
// must agree on it, so they all ask this scheme.
package builtin

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// Scheme holds exactly the kinds client-go's own packages register. Do not
// add to it.
var Scheme = newScheme()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic("register client-go's kinds: " + err.Error())
	}
	return s
}
