package plan

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// PruneAnnotation, set to "allow" on a live Namespace, PVC, PV or Secret,
// lets a pruning plan delete it.
const PruneAnnotation = "piceli.dev/prune"

// protected kinds hold data; pruning never deletes them without the
// object's own opt-in.
var protected = map[string]bool{"/Namespace": true, "/PersistentVolumeClaim": true, "/PersistentVolume": true, "/Secret": true}

// prunes returns a delete step for every listed object labelled with this
// release that the composition no longer declares. It looks only at the
// kinds and namespaces the composition uses.
func (m *maker) prunes() []Step {
	if !m.in.Prune {
		return nil
	}
	declared := map[object.Ref]bool{}
	for _, o := range m.in.Objects {
		declared[object.RefOf(o.Object)] = true
	}
	var out []Step
	for _, k := range m.listKeys() {
		for _, u := range m.live.byList[k] {
			if m.prunable(u, declared) {
				out = append(out, deleteStep(u, k.GVR.Resource))
			}
		}
	}
	return out
}

func (m *maker) prunable(u *unstructured.Unstructured, declared map[object.Ref]bool) bool {
	ref := object.RefOf(u)
	if declared[ref] || u.GetLabels()[object.ReleaseLabel] != m.in.Release.Name {
		return false
	}
	return !protected[ref.Group+"/"+ref.Kind] || u.GetAnnotations()[PruneAnnotation] == "allow"
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
