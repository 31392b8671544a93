package object

// Ref identifies an object by group, kind, namespace and name. It is the one
// spelling of an object everywhere Piceli prints or stores one.
type Ref struct {
	Group     string `json:"group,omitempty"` // the API group; empty for the core group
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"` // empty for a cluster-scoped object
	Name      string `json:"name"`
}

// String formats the reference as Kind/namespace/name, or Kind/name for
// cluster-scoped objects. The group is left out, for readability: two
// kinds of one name in different groups print alike.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// IsSecret reports whether r names a core Secret: kind Secret in the core
// group. It is the one rule for what Piceli treats as a Secret, whose
// values it never prints, stores or logs; a kind named Secret in another
// group is not one.
func (r Ref) IsSecret() bool { return r.Group == "" && r.Kind == "Secret" }
