package importgen

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// takePod claims a pod template: its labels and annotations, its
// containers, volumes and the pod fields options set. restart is the
// restart policy the builder writes without app.RestartPolicy ("" for
// none).
func (g *gen) takePod(w *workload, t *corev1.PodTemplateSpec, restart corev1.RestartPolicy) string {
	if why := g.takePodLabels(w, t); why != "" {
		return why
	}
	if len(t.Annotations) > 0 {
		if !qualifiedKeys(t.Annotations) {
			return "a pod annotation key is not a qualified name"
		}
		w.selection.add(appCall("PodAnnotations", stringMap(t.Annotations)))
		t.Annotations = nil
	}
	spec := &t.Spec
	if why := g.takeRestart(w, spec, restart); why != "" {
		return why
	}
	if why := g.takeVolumes(w, spec); why != "" {
		return why
	}
	if why := g.takeContainers(w, spec); why != "" {
		return why
	}
	g.takePodFields(w, spec)
	return ""
}

// takePodLabels claims the pod labels: none when they are what the builder
// writes (the selector, or the builder labels), app.PodLabels otherwise.
func (g *gen) takePodLabels(w *workload, t *corev1.PodTemplateSpec) string {
	want := g.builderLabels(w.name)
	if w.selectorSet {
		want = w.selector
	}
	labels := t.Labels
	if len(labels) == 0 {
		labels = nil
	}
	w.podLabels = maps.Clone(labels)
	if maps.Equal(labels, want) {
		t.Labels = nil
		return ""
	}
	sel := w.selector
	if !w.selectorSet {
		sel = g.selector(w.name)
	}
	for k, v := range sel {
		if isAppsKind(w.kind) && labels[k] != v {
			return fmt.Sprintf("its pod labels lack the selector's %s=%s", k, v)
		}
	}
	w.selection.addOpt(g.labelsOption("PodLabels", labels, w.name+"PodLabels", &w.selection))
	t.Labels = nil
	return ""
}

// takeRestart claims the pods' restart policy.
func (g *gen) takeRestart(w *workload, spec *corev1.PodSpec, restart corev1.RestartPolicy) string {
	p := spec.RestartPolicy
	switch {
	case p == restart:
	case p == "":
		return fmt.Sprintf("its pods have no restartPolicy, which the %s builder writes as %s", w.kind, restart)
	case p == corev1.RestartPolicyAlways && restart != "":
		return "its pods restart Always, which a Job may not"
	case slices.Contains([]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}, p):
		w.pod.add(appCall("RestartPolicy", jen.Lit(string(p))))
	default:
		return fmt.Sprintf("restart policy %q is not one Kubernetes knows", p)
	}
	spec.RestartPolicy = ""
	return ""
}

// takeContainers claims the main container, the sidecars and the init
// containers.
func (g *gen) takeContainers(w *workload, spec *corev1.PodSpec) string {
	if len(spec.Containers) == 0 {
		return "its pods have no containers"
	}
	if why := g.takeContainer(w, &w.container, &spec.Containers[0], mainContainer, "containers[0]"); why != "" {
		return why
	}
	for i := range spec.Containers[1:] {
		if why := g.takeNested(w, &w.sidecars, "Sidecar", &spec.Containers[i+1], fmt.Sprintf("containers[%d]", i+1)); why != "" {
			return why
		}
	}
	for i := range spec.InitContainers {
		if why := g.takeNested(w, &w.inits, "InitContainer", &spec.InitContainers[i], fmt.Sprintf("initContainers[%d]", i)); why != "" {
			return why
		}
	}
	return ""
}

// takeNested claims a sidecar or init container as app.Sidecar(name,
// ...) or app.InitContainer(name, ...).
func (g *gen) takeNested(w *workload, group *options, method string, c *corev1.Container, path string) string {
	name := c.Name
	if !validLabel(name) {
		return fmt.Sprintf("container %q is not a DNS-1123 label", name)
	}
	role := sidecarContainer
	if method == "InitContainer" {
		role = initContainer
	}
	var o options
	if why := g.takeContainer(w, &o, c, role, path); why != "" {
		return why
	}
	group.refs, group.uses = append(group.refs, o.refs...), append(group.uses, o.uses...)
	group.addOpt(func() jen.Code {
		return appCallLong(method, append([]jen.Code{jen.Lit(name)}, o.render()...)...)
	})
	return ""
}

// takePodFields claims the pod fields the pod options set, each only when
// its option would take the value; the rest is left for an Edit.
func (g *gen) takePodFields(w *workload, spec *corev1.PodSpec) {
	o := &w.pod
	if n := spec.ServiceAccountName; n != "" && validSubdomain(n) {
		if h := g.handles.get("ServiceAccount", n); h != nil {
			ref := o.ref(h)
			o.addOpt(func() jen.Code { return appCall("RunAs", ref()) })
		} else {
			o.add(appCall("RunAs", appCall("ServiceAccountRef", jen.Lit(n))))
		}
		spec.ServiceAccountName = ""
	}
	if a := spec.AutomountServiceAccountToken; a != nil {
		o.add(appCall("AutomountToken", jen.Lit(*a)))
		spec.AutomountServiceAccountToken = nil
	}
	if len(spec.NodeSelector) > 0 && labelsValid(spec.NodeSelector) {
		o.add(appCall("NodeSelector", stringMap(spec.NodeSelector)))
		spec.NodeSelector = nil
	}
	g.takePodStructs(o, spec)
	g.takePodScalars(o, spec)
}

// takePodStructs claims the pod fields options take as k8s.io/api values.
func (g *gen) takePodStructs(o *options, spec *corev1.PodSpec) {
	l := &literal{}
	if a := spec.Affinity; a != nil {
		if s, ok := g.helperValue(a, "affinity"); ok {
			v := o.value(g, s)
			o.addOpt(func() jen.Code { return appCallLong("Affinity", v()) })
			spec.Affinity = nil
		}
	}
	if sc := spec.SecurityContext; sc != nil {
		if s, ok := g.helperValue(sc, "podSecurity"); ok {
			v := o.value(g, s)
			o.addOpt(func() jen.Code { return appCallLong("PodSecurity", v()) })
			spec.SecurityContext = nil
		}
	}
	if ts := spec.Tolerations; len(ts) > 0 && !slices.ContainsFunc(ts, func(t corev1.Toleration) bool { return tolerationError(t) != "" }) {
		if c, err := l.items(ts); err == nil {
			o.add(appCallLong("Tolerations", c...))
			spec.Tolerations = nil
		}
	}
	if cs := spec.TopologySpreadConstraints; len(cs) > 0 && !slices.ContainsFunc(cs, func(c corev1.TopologySpreadConstraint) bool { return c.TopologyKey == "" || c.MaxSkew < 1 }) {
		if c, err := l.items(cs); err == nil {
			o.add(appCallLong("TopologySpread", c...))
			spec.TopologySpreadConstraints = nil
		}
	}
	if ps := spec.ImagePullSecrets; len(ps) > 0 && !slices.ContainsFunc(ps, func(r corev1.LocalObjectReference) bool { return !validSubdomain(r.Name) }) {
		var names []jen.Code
		for _, r := range ps {
			names = append(names, jen.Lit(r.Name))
		}
		o.add(appCall("ImagePullSecrets", names...))
		spec.ImagePullSecrets = nil
	}
}

// takePodScalars claims the pod's scalar fields options set.
func (g *gen) takePodScalars(o *options, spec *corev1.PodSpec) {
	if t := spec.TerminationGracePeriodSeconds; t != nil && *t >= 0 {
		o.add(appCall("TerminationGrace", jen.Lit(int(*t))))
		spec.TerminationGracePeriodSeconds = nil
	}
	if p := spec.PriorityClassName; p != "" && validSubdomain(p) {
		o.add(appCall("PriorityClass", jen.Lit(p)))
		spec.PriorityClassName = ""
	}
	if spec.HostNetwork {
		o.add(appCall("HostNetwork"))
		spec.HostNetwork = false
	}
	if spec.HostPID {
		o.add(appCall("HostPID"))
		spec.HostPID = false
	}
	if p := spec.DNSPolicy; slices.Contains([]corev1.DNSPolicy{corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault, corev1.DNSNone}, p) {
		o.add(appCall("DNSPolicy", jen.Lit(string(p))))
		spec.DNSPolicy = ""
	}
}

// tolerationError mirrors the Tolerations option's check.
func tolerationError(t corev1.Toleration) string {
	switch {
	case !slices.Contains([]corev1.TolerationOperator{"", corev1.TolerationOpExists, corev1.TolerationOpEqual}, t.Operator),
		t.Operator == corev1.TolerationOpExists && t.Value != "",
		!slices.Contains([]corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, t.Effect),
		t.Key == "" && t.Operator != corev1.TolerationOpExists:
		return "invalid"
	}
	return ""
}

// labelsValid reports whether a map holds valid label keys and values.
func labelsValid(m map[string]string) bool {
	for k, v := range m {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
			return false
		}
	}
	return true
}

// qualifiedKeys reports whether every key is a qualified name.
func qualifiedKeys(m map[string]string) bool {
	for k := range m {
		if len(validation.IsQualifiedName(k)) > 0 {
			return false
		}
	}
	return true
}
