// Package builtin is the scheme of Kubernetes' built-in kinds: the kinds
// client-go registers itself, and no other. client-go's global scheme is
// not that: any linked library may add to it when it starts (the Helm SDK
// adds CustomResourceDefinition), so what counts as built-in would depend
// on what a binary links. A composition, the importer and the generator
// must agree on it, so they all ask this scheme.
package builtin

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// Scheme returns the scheme of exactly the kinds client-go's own packages
// register. Do not add to it. It is built on first use, not when a binary
// starts: registering every built-in kind takes milliseconds that a
// command which never converts a typed object (most of them) would pay
// on each start.
var Scheme = sync.OnceValue(newScheme)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic("register client-go's kinds: " + err.Error())
	}
	return s
}
