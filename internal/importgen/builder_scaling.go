package importgen

import (
	"maps"

	"github.com/dave/jennifer/jen"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// autoscaler recognises a.Autoscaler(workload, min, max, metrics...): a
// builder Deployment or StatefulSet that leaves its replicas to it.
func (g *gen) autoscaler(obj runtime.Object) (built, bool) {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler).DeepCopy()
	name, spec := h.Name, &h.Spec
	w := g.handles.workload(name)
	notes, ok := g.takeMeta(&h.ObjectMeta, name, name, true)
	if w == nil || !ok || w.replicas || (w.kind != "Deployment" && w.kind != "StatefulSet") {
		return built{}, false
	}
	target := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: w.kind, Name: name}
	if spec.ScaleTargetRef != target || spec.MinReplicas == nil || *spec.MinReplicas < 1 || spec.MaxReplicas < *spec.MinReplicas {
		return built{}, false
	}
	metrics, ok := utilizations(spec.Metrics)
	min, max := int(*spec.MinReplicas), int(spec.MaxReplicas)
	spec.ScaleTargetRef, spec.MinReplicas, spec.MaxReplicas, spec.Metrics = autoscalingv2.CrossVersionObjectReference{}, nil, 0, nil
	if !ok || !rest(h) {
		return built{}, false
	}
	return built{code: call("Autoscaler", func() []jen.Code {
		args := []jen.Code{w.ref(), jen.Lit(min), jen.Lit(max)}
		return append(append(args, metrics...), notes...)
	})}, true
}

// utilizations turns CPU and memory utilization targets into
// CPUUtilization and MemoryUtilization; the builder's default of 80% CPU
// is written out too.
func utilizations(ms []autoscalingv2.MetricSpec) ([]jen.Code, bool) {
	if len(ms) == 0 {
		return nil, false
	}
	methods := map[corev1.ResourceName]string{corev1.ResourceCPU: "CPUUtilization", corev1.ResourceMemory: "MemoryUtilization"}
	var out []jen.Code
	for _, m := range ms {
		r := m.Resource
		if m.Type != autoscalingv2.ResourceMetricSourceType || r == nil || methods[r.Name] == "" {
			return nil, false
		}
		t := r.Target
		if t.Type != autoscalingv2.UtilizationMetricType || t.AverageUtilization == nil || *t.AverageUtilization < 1 || t.Value != nil || t.AverageValue != nil {
			return nil, false
		}
		if m != (autoscalingv2.MetricSpec{Type: m.Type, Resource: r}) {
			return nil, false
		}
		out = append(out, appCall(methods[r.Name], jen.Lit(int(*t.AverageUtilization))))
	}
	return out, true
}

// budget recognises a.DisruptionBudget(workload, app.MinAvailable(n)) and
// MaxUnavailable.
func (g *gen) budget(obj runtime.Object) (built, bool) {
	b := obj.(*policyv1.PodDisruptionBudget).DeepCopy()
	name, spec := b.Name, &b.Spec
	w := g.handles.workload(name)
	if _, ok := g.takeMeta(&b.ObjectMeta, name, name, false); w == nil || !ok {
		return built{}, false
	}
	if spec.Selector == nil || len(spec.Selector.MatchExpressions) > 0 || !maps.Equal(spec.Selector.MatchLabels, g.selector(name)) {
		return built{}, false
	}
	var budget jen.Code
	switch {
	case countOnly(spec.MinAvailable) && spec.MaxUnavailable == nil:
		budget = appCall("MinAvailable", jen.Lit(int(spec.MinAvailable.IntVal)))
	case countOnly(spec.MaxUnavailable) && spec.MinAvailable == nil:
		budget = appCall("MaxUnavailable", jen.Lit(int(spec.MaxUnavailable.IntVal)))
	default:
		return built{}, false
	}
	spec.Selector, spec.MinAvailable, spec.MaxUnavailable = nil, nil, nil
	if !rest(b) {
		return built{}, false
	}
	return built{code: call("DisruptionBudget", func() []jen.Code { return []jen.Code{w.ref(), budget} })}, true
}

// countOnly reports whether v is a pod count the budgets write.
func countOnly(v *intstr.IntOrString) bool {
	return v != nil && v.Type == intstr.Int && v.IntVal >= 0
}
