package object

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Declared is one object a release declares and where it came from. It is
// the one form an object takes from the composition through rendering,
// secret injection, resolution and planning, and it is written as is into
// a composition document: {"origin", "dependsOn", "manifest"}.
type Declared struct {
	// Origin says where the object was declared, for errors: a file and
	// line ("manifests/a.yaml:12", "a.yaml:3 (item 0)"), a builder
	// component ("component web"), a foreign object ("k8s.io/api
	// ConfigMap/x") or the release itself.
	Origin string `json:"origin"`
	// DependsOn names the components the object is applied after (and
	// whose readiness it waits for); empty for objects read from files.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Object is the manifest. Piceli's stages that change it copy it,
	// except secret injection, which fills a Secret's values in place.
	Object *unstructured.Unstructured `json:"manifest"`
}
