package install

import (
	"strings"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/refusal"
)

// CheckPlan refuses (refusal.Is) an install plan that would take over
// another namespace's controller: one that changes the subjects of the
// ClusterRoleBinding Name, which then binds another namespace's
// ServiceAccount. A cluster has one controller: its CRD, ClusterRoles and
// ClusterRoleBinding are cluster-wide, so a second install would move them
// to itself and its uninstall would delete them from under the first.
func CheckPlan(p *plan.Plan) error {
	for _, s := range p.Steps {
		if s.Ref.Kind != "ClusterRoleBinding" || s.Ref.Name != Name || s.Action == plan.NoOp || s.Action == plan.Create {
			continue
		}
		for _, c := range s.Changes {
			if strings.HasPrefix(c.Path, "subjects") {
				return refusal.Errorf("controller: ClusterRoleBinding/%s binds the controller of another namespace (%s: %v → %v): a cluster runs one Piceli controller; uninstall that one first, or install into its namespace", Name, c.Path, c.From, c.To)
			}
		}
	}
	return nil
}
