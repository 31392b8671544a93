package plan

import pub "github.com/pynenc/piceli/plan"

// Kept and KeepReason live in the public package plan.
type (
	Kept       = pub.Kept
	KeepReason = pub.KeepReason
)

// The reasons to keep an object, in the order a plan weighs them.
const (
	KeepPruneOff            = pub.KeepPruneOff
	KeepNamespaceNotAllowed = pub.KeepNamespaceNotAllowed
	KeepNotCreated          = pub.KeepNotCreated
	KeepProtected           = pub.KeepProtected
	KeepDeleting            = pub.KeepDeleting
)
