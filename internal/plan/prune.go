package plan

import (
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
	pub "github.com/pynenc/piceli/plan"
)

// PruneAnnotation, set to "allow" on a live Namespace, PVC, PV or Secret,
// lets a pruning plan delete it.
const PruneAnnotation = pub.PruneAnnotation

// protected kinds hold data; pruning never deletes them without the
// object's own opt-in.
var protected = map[string]bool{"/Namespace": true, "/PersistentVolumeClaim": true, "/PersistentVolume": true, "/Secret": true}

// prunes returns a delete step for every listed object labelled with this
// release that the composition no longer declares and prune may delete,
// and the others such objects as kept, with why. It looks at the kinds
// and namespaces the composition and the previous revision use, so the
// last object of a kind is not forgotten, and never at the target
// namespace itself.
func (m *maker) prunes() ([]Step, []Kept) {
	declared := maps.Clone(m.declared)
	declared[namespaceRef(m.in.Namespace)] = true
	var steps []Step
	var kept []Kept
	for _, k := range m.keys {
		for _, u := range m.live.byList[k] {
			ref := object.RefOf(u)
			if declared[ref] || !m.ours(u) {
				continue
			}
			declared[ref] = true // listed again under another version
			if why := m.keep(u); why != "" {
				kept = append(kept, keptOf(u, why))
				continue
			}
			steps = append(steps, deleteStep(u, k.GVR.Resource))
		}
	}
	return steps, kept
}

// ours reports whether u, an undeclared object, belongs to this release:
// it carries the release's label and either lives in the release's
// namespace or is named by the release's records (a UID it created, an
// object of its previous revision). A release of the same name in another
// namespace labels its objects alike, its Namespace among them; those are
// not this release's to delete or to list as kept.
func (m *maker) ours(u *unstructured.Unstructured) bool {
	if u.GetLabels()[object.ReleaseLabel] != m.in.Release.Name {
		return false
	}
	if ns := u.GetNamespace(); ns != "" && ns == m.in.Namespace {
		return true
	}
	return m.previous(object.RefOf(u)) || m.owned(string(u.GetUID())) // the records only when they must
}

// previous reports whether the release's previous revision has ref.
func (m *maker) previous(ref object.Ref) bool {
	for _, o := range m.in.Previous {
		if o.Ref == ref {
			return true
		}
	}
	return false
}

// keep says why prune must not delete u, an undeclared object labelled
// with the release, or "" when it may.
func (m *maker) keep(u *unstructured.Unstructured) KeepReason {
	ref := object.RefOf(u)
	switch {
	case u.GetDeletionTimestamp() != nil:
		return KeepDeleting
	case !m.in.Prune:
		return KeepPruneOff
	case ref.Namespace != "" && !m.allowed(ref.Namespace):
		return KeepNamespaceNotAllowed
	case !m.owned(string(u.GetUID())):
		return KeepNotCreated
	case protected[ref.Group+"/"+ref.Kind] && u.GetAnnotations()[PruneAnnotation] != "allow":
		return KeepProtected
	}
	return ""
}

// previousKeys returns the LIST of each resource and namespace the
// previous revision's objects use.
func (m *maker) previousKeys() []listKey {
	keys := make([]listKey, 0, len(m.in.Previous))
	for _, o := range m.in.Previous {
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil || o.Resource == "" {
			continue
		}
		keys = append(keys, listKey{GVR: gv.WithResource(o.Resource), Namespace: o.Ref.Namespace})
	}
	return keys
}

// keptOf is u kept for why, with the finalizers holding it when it is
// being deleted.
func keptOf(u *unstructured.Unstructured, why KeepReason) Kept {
	k := Kept{Ref: object.RefOf(u), UID: string(u.GetUID()), Reason: why}
	if why == KeepDeleting {
		k.Finalizers = u.GetFinalizers()
	}
	return k
}

func deleteStep(u *unstructured.Unstructured, resource string) Step {
	ref := object.RefOf(u)
	return Step{
		Ref:        ref,
		APIVersion: u.GetAPIVersion(),
		Resource:   resource,
		Stage:      graph.StageOf(ref.Group, ref.Kind),
		Action:     Delete,
		Observed:   Observed{UID: string(u.GetUID()), ResourceVersion: u.GetResourceVersion(), Generation: u.GetGeneration()},
		Origin:     "no longer declared",
	}
}
