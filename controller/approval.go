package controller

import (
	"fmt"
	"slices"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/plan"
)

// Who approved a plan, as PlanSummary.ApprovedBy says.
const (
	ApprovedBySpec   = "spec.approve"
	ApprovedByPolicy = "policy"
)

// approvedBy says who approved p for rel: a person, by writing its hash
// into spec.approve, or rel's policy; "" when nobody did. A blocked plan is
// never approved.
func (r *Reconciler) approvedBy(rel *v1alpha1.Release, p *plan.Plan) string {
	if len(p.Blocked()) > 0 {
		return ""
	}
	if rel.Spec.Approve != "" && rel.Spec.Approve == p.Hash {
		return ApprovedBySpec
	}
	if rel.Spec.Policy != nil && PolicyRefuses(rel.Spec.Policy, p) == "" {
		return ApprovedByPolicy
	}
	return ""
}

// PolicyRefuses says why pol does not approve p, or "" when it does: every
// step that changes something must have an action pol allows (a delete
// only when "delete" is listed), and at most MaxObjects steps may change.
func PolicyRefuses(pol *v1alpha1.Policy, p *plan.Plan) string {
	changed := 0
	for _, s := range p.Steps {
		if s.Action == plan.NoOp {
			continue
		}
		changed++
		if !slices.Contains(pol.Actions, string(s.Action)) {
			return fmt.Sprintf("it would %s %s, and the policy allows only %v", s.Action, s.Ref, pol.Actions)
		}
	}
	if pol.MaxObjects > 0 && changed > int(pol.MaxObjects) {
		return fmt.Sprintf("it changes %d objects, and the policy allows at most %d", changed, pol.MaxObjects)
	}
	return ""
}
