package plan

import (
	"strings"

	"github.com/pynenc/piceli/object"
)

// PruneAnnotation, set to "allow" on a live Namespace, PVC, PV or Secret,
// lets a pruning plan delete it.
const PruneAnnotation = "piceli.dev/prune"

// Kept is a live object labelled with the release that the composition no
// longer declares and the plan does not delete, and why.
type Kept struct {
	Ref    object.Ref `json:"ref"`
	UID    string     `json:"uid"`
	Reason KeepReason `json:"reason"`
	// Finalizers hold an object KeepDeleting keeps.
	Finalizers []string `json:"finalizers,omitempty"`
}

// Explain says why k is kept, for people; for an object being deleted,
// which finalizers hold it.
func (k Kept) Explain() string {
	if k.Reason != KeepDeleting {
		return k.Reason.Explain()
	}
	if len(k.Finalizers) == 0 {
		return "scheduled for deletion; the plan does not delete it again"
	}
	return "deleting (finalizers: " + strings.Join(k.Finalizers, ", ") + "): waits until their controllers remove them; the plan does not delete it again"
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
	// of the release holds its UID: someone else's object.
	KeepNotCreated KeepReason = "not-created-by-release"
	// KeepProtected: a Namespace, PVC, PV or Secret without the
	// PruneAnnotation.
	KeepProtected KeepReason = "protected"
	// KeepDeleting: the object is already being deleted (its finalizers
	// may hold it a long time): deleting it again would change nothing.
	KeepDeleting KeepReason = "deleting"
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
	case KeepDeleting:
		return "already being deleted"
	}
	return string(r)
}
