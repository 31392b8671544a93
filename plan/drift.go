package plan

import (
	"slices"
	"strings"

	"github.com/pynenc/piceli/object"
)

// DriftedObject is an object whose live state differs from what a plan
// declares for it: of a plan made of the objects a release last applied
// (made with release.PlanOptions.Reclaim, so that edits name their
// editor), what changed in the cluster since.
type DriftedObject struct {
	Ref object.Ref `json:"ref"`
	// Deleted says the object is gone: restoring it creates it.
	Deleted bool `json:"deleted,omitempty"`
	// Fields are the declared fields whose live values differ, by path,
	// sorted; never a value.
	Fields []DriftedField `json:"fields,omitempty"`
}

// DriftedField is one declared field whose live value differs.
type DriftedField struct {
	Path string `json:"path"`
	// Manager is the field manager that took the field, when the
	// object's managedFields say; empty when they do not.
	Manager string `json:"manager,omitempty"`
	// Applied says Manager owns the field by server-side apply, as the
	// release does: a declaration of its own, which taking back would
	// start a fight between two appliers. Otherwise Manager edited it
	// (an update), and a plan made with Reclaim takes it back.
	Applied bool `json:"applied,omitempty"`
}

// Drift lists the steps of p that change an object, as drift: the fields
// other managers took (Reclaim and Conflicts) with their manager, the
// other changed fields by path, and deleted objects. Deletes are left
// out: an object the plan no longer declares is pruning, not drift.
func (p *Plan) Drift() []DriftedObject {
	var out []DriftedObject
	for _, s := range p.Steps {
		switch s.Action {
		case NoOp, Delete:
			continue
		case Create:
			out = append(out, DriftedObject{Ref: s.Ref, Deleted: true})
			continue
		}
		out = append(out, DriftedObject{Ref: s.Ref, Fields: driftedFields(s)})
	}
	return out
}

// driftedFields are the fields of s that others took, with who took
// them, then any other changed field, sorted by path.
func driftedFields(s Step) []DriftedField {
	var out []DriftedField
	seen := map[string]bool{}
	for _, c := range slices.Concat(s.Reclaim, s.Conflicts) {
		for _, f := range c.Fields {
			seen[f] = true
			out = append(out, DriftedField{Path: f, Manager: c.Manager, Applied: c.Operation == OperationApply})
		}
	}
	for _, c := range s.Changes {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, DriftedField{Path: c.Path})
		}
	}
	slices.SortFunc(out, func(a, b DriftedField) int { return strings.Compare(a.Path, b.Path) })
	return out
}
