package plan

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// approvedSteps indexes the steps of Options.Approved by object, deletes
// aside: those come from the LISTs alone, never from a dry-run.
func approvedSteps(p *Plan) map[object.Ref]Step {
	if p == nil {
		return nil
	}
	out := make(map[object.Ref]Step, len(p.Steps))
	for _, s := range p.Steps {
		if s.Action != Delete {
			out[s.Ref] = s
		}
	}
	return out
}

// confirmed returns the approved plan's step for s, the step being planned
// now, when nothing the approved step was made from has changed: the
// desired manifest digests the same and resolves to the same resource, the
// readiness policy is the same (NoWait: [release] wait may have changed
// without the manifest), and the LIST shows the object still absent, or the very version the approved
// plan observed (same UID and resourceVersion: nobody has written it
// since). A dry-run of it would then answer as it did, so it is not sent
// again. Otherwise ok is false and the step is planned afresh, dry-run
// included, for plan.Stale to compare.
func (m *maker) confirmed(s Step, live *unstructured.Unstructured) (Step, bool) {
	a, ok := m.approved[s.Ref]
	if !ok || a.Desired != s.Desired || a.APIVersion != s.APIVersion || a.Resource != s.Resource || a.NoWait != s.NoWait {
		return Step{}, false
	}
	unchanged := a.Observed.Absent
	if live != nil {
		unchanged = !a.Observed.Absent && string(live.GetUID()) == a.Observed.UID && live.GetResourceVersion() == a.Observed.ResourceVersion
	}
	if !unchanged {
		return Step{}, false
	}
	a.Origin, a.Seal, a.DependsOn = s.Origin, "", nil // DependsOn is derived again for every plan
	return a, true
}
