package object

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	pub "github.com/pynenc/piceli/object"
)

// Ref identifies an object by group, kind, namespace and name; its home is
// the public package object, where users read it.
type Ref = pub.Ref

// RefOf returns the reference of an unstructured object.
func RefOf(u *unstructured.Unstructured) Ref {
	gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
	return Ref{Group: gv.Group, Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// IsSecret reports whether u is a core Secret (IsSecretRef of its
// reference), whose values Piceli never prints, stores or logs. It reads
// only apiVersion and kind, so a bare manifest map wrapped in an
// Unstructured is judged alike.
func IsSecret(u *unstructured.Unstructured) bool { return IsSecretRef(RefOf(u)) }

// IsSecretRef reports whether ref names a core Secret (Ref.IsSecret): kind
// Secret in the core group.
func IsSecretRef(ref Ref) bool { return ref.IsSecret() }
