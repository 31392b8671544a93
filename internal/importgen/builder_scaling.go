package importgen

import (
	"maps"

	"github.com/dave/jennifer/jen"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// autoscaler recognises a.Autoscaler(workload, min, max, metrics...): a
// builder Deployment or StatefulSet that leaves its replicas to it.
func (g *gen) autoscaler(d *decl) (built, string) {
	h := d.typed.(*autoscalingv2.HorizontalPodAutoscaler).DeepCopy()
	name, spec := h.Name, &h.Spec
	w := g.handles.workload(name)
	var meta options
	if why := g.takeMeta(&h.ObjectMeta, name, &meta, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	if w == nil || w.replicas || (w.kind != "Deployment" && w.kind != "StatefulSet") {
		return built{}, "it does not scale a builder Deployment or StatefulSet of its name that leaves its replicas to it"
	}
	target := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: w.kind, Name: name}
	if spec.ScaleTargetRef != target || spec.MinReplicas == nil || *spec.MinReplicas < 1 || spec.MaxReplicas < *spec.MinReplicas {
		return built{}, "its target or replica range is not one app.Autoscaler writes"
	}
	metrics, ok := utilizations(spec.Metrics)
	min, max := int(*spec.MinReplicas), int(spec.MaxReplicas)
	spec.ScaleTargetRef, spec.MinReplicas, spec.MaxReplicas, spec.Metrics = autoscalingv2.CrossVersionObjectReference{}, nil, 0, nil
	if !ok || !rest(h) {
		return built{}, "its metrics or behavior are not CPU and memory utilization"
	}
	return built{refs: []*handle{w}, uses: meta.uses, code: call("Autoscaler", func() []jen.Code {
		args := []jen.Code{w.ref(), jen.Lit(min), jen.Lit(max)}
		return append(append(args, metrics...), meta.render()...)
	})}, ""
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
func (g *gen) budget(d *decl) (built, string) {
	b := d.typed.(*policyv1.PodDisruptionBudget).DeepCopy()
	name, spec := b.Name, &b.Spec
	w := g.handles.workload(name)
	var o options
	if why := g.takeMeta(&b.ObjectMeta, name, &o, metaRules{}); why != "" {
		return built{}, why
	}
	if w == nil || spec.Selector == nil || len(spec.Selector.MatchExpressions) > 0 || !maps.Equal(spec.Selector.MatchLabels, w.selector) {
		return built{}, "it does not select the pods of a builder workload of its name"
	}
	var budget jen.Code
	switch {
	case countOnly(spec.MinAvailable) && spec.MaxUnavailable == nil:
		budget = appCall("MinAvailable", jen.Lit(int(spec.MinAvailable.IntVal)))
	case countOnly(spec.MaxUnavailable) && spec.MinAvailable == nil:
		budget = appCall("MaxUnavailable", jen.Lit(int(spec.MaxUnavailable.IntVal)))
	default:
		return built{}, "its budget is not one pod count"
	}
	spec.Selector, spec.MinAvailable, spec.MaxUnavailable = nil, nil, nil
	if !rest(b) {
		return built{}, "it has fields app.DisruptionBudget does not write"
	}
	return built{refs: []*handle{w}, code: call("DisruptionBudget", func() []jen.Code { return []jen.Code{w.ref(), budget} })}, ""
}

// countOnly reports whether v is a pod count the budgets write.
func countOnly(v *intstr.IntOrString) bool {
	return v != nil && v.Type == intstr.Int && v.IntVal >= 0
}
