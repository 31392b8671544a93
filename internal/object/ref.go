package object

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Ref identifies an object by group, kind, namespace and name. It is the one
// spelling of an object everywhere Piceli prints or stores one.
type Ref struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String formats the reference as Kind/namespace/name, or Kind/name for
// cluster-scoped objects. Kinds of non-core groups are qualified
// (Ingress.networking.k8s.io/shop/web) only when the kind alone is ambiguous;
// Piceli keeps the short form for readability.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

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

// IsSecretRef reports whether ref names a core Secret: kind Secret in the
// core group. It is the one rule for what Piceli treats as a Secret; a kind
// named Secret in another group is not one.
func IsSecretRef(ref Ref) bool { return ref.Group == "" && ref.Kind == "Secret" }
