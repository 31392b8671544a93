package app

import (
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Budget bounds voluntary disruption of a workload's pods; make one with
// MinAvailable or MaxUnavailable.
type Budget struct {
	minAvailable   *intstr.IntOrString
	maxUnavailable *intstr.IntOrString
	err            string
}

// MinAvailable keeps at least n pods running during voluntary disruptions
// (node drains, for example).
func MinAvailable(n int32) Budget {
	v := intstr.FromInt32(n)
	return Budget{minAvailable: &v, err: negative(n)}
}

// MaxUnavailable lets at most n pods be down at once during voluntary
// disruptions.
func MaxUnavailable(n int32) Budget {
	v := intstr.FromInt32(n)
	return Budget{maxUnavailable: &v, err: negative(n)}
}

func negative(n int32) string {
	if n < 0 {
		return fmt.Sprintf("budget %d must not be negative", n)
	}
	return ""
}

// DisruptionBudget declares a policy/v1 PodDisruptionBudget named after the
// workload and selecting its pods.
func (a *App) DisruptionBudget(w *Workload, b Budget) {
	if w == nil {
		a.errorf("disruption budget: workload is nil")
		return
	}
	if b.err != "" {
		a.report("PodDisruptionBudget", w.name, []string{b.err})
	} else if b.minAvailable == nil && b.maxUnavailable == nil {
		a.report("PodDisruptionBudget", w.name, []string{"budget is empty (use app.MinAvailable or app.MaxUnavailable)"})
	}
	if !a.claim("PodDisruptionBudget", w.name) {
		return
	}
	e := a.add(w.name, &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: meta(w.name, a.labels(w.name), nil),
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: w.selectorLabels(a)},
			MinAvailable:   b.minAvailable,
			MaxUnavailable: b.maxUnavailable,
		},
	}, nil)
	e.about = []*Workload{w}
}
