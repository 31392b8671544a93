package plan

import "github.com/pynenc/piceli/internal/object"

// Kept is a live object labelled with the release that the composition no
// longer declares and the plan does not delete, and why.
type Kept struct {
	Ref    object.Ref `json:"ref"`
	UID    string     `json:"uid"`
	Reason KeepReason `json:"reason"`
}

// KeepReason says why a plan keeps an undeclared object of the release.
// Its values are persisted in plan documents.
type KeepReason string

// The reasons to keep an object, in the order a plan weighs them.
const (
	// KeepPruneOff: release.prune is off, so nothing is deleted.
	KeepPruneOff KeepReason = "prune-off"
	// KeepNamespaceNotAllowed: the object is in a namespace the release
	// may no longer write to.
	KeepNamespaceNotAllowed KeepReason = "namespace-not-allowed"
	// KeepNotCreated: the object carries the release label, but no record
	// of the release holds its UID (Input.Owned): someone else's object.
	KeepNotCreated KeepReason = "not-created-by-release"
	// KeepProtected: a Namespace, PVC, PV or Secret without the
	// PruneAnnotation.
	KeepProtected KeepReason = "protected"
)

// Explain says what a reason means, for people.
func (r KeepReason) Explain() string {
	switch r {
	case KeepPruneOff:
		return "no longer declared; release.prune is off"
	case KeepNamespaceNotAllowed:
		return "its namespace is not in target.namespaces any more"
	case KeepNotCreated:
		return "carries the release label, but this release never created it (its UID is in none of the release's records)"
	case KeepProtected:
		return "it may hold data; annotate it " + PruneAnnotation + "=allow to let prune delete it"
	}
	return string(r)
}
