package importgen

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/dave/jennifer/jen"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// option is a builder option rendered once identifiers are known.
type option func() jen.Code

// fixed is an option that needs no identifiers.
func fixed(c jen.Code) option { return func() jen.Code { return c } }

// workload collects the options of a workload builder call in the order
// they are written: image and command, scale and job settings, the main
// container, sidecars, init containers, volumes, the pod, how pods are
// selected and labelled, the object's own metadata, then Zero and Edit.
type workload struct {
	kind, name                                                                   string
	d                                                                            *decl
	head, scale, container, sidecars, inits, volumes, pod, selection, meta, tail options
	ports                                                                        []port
	// selector and podLabels are what the builder call makes of them.
	selector, podLabels map[string]string
	selectorSet         bool
	objectLabels        map[string]string
	replicas            bool
	// readWrite holds the zero paths Mount's ReadWrite writes.
	readWrite []string
	// templates are a StatefulSet's claim templates by name.
	templates map[string]bool
	// shortcuts says the pod's volumes are what the Mount* shortcuts
	// make; shortcutMounts holds their option by volume and path.
	shortcuts      bool
	shortcutMounts map[string]option
	// inlineTemplates write a claim template with its mount's path.
	inlineTemplates map[string]func(path string) jen.Code
}

// podPath is the JSON path of the pod spec in the workload's object.
func (w *workload) podPath() string {
	if w.kind == "CronJob" {
		return "spec.jobTemplate.spec.template.spec"
	}
	return "spec.template.spec"
}

// groups returns the option groups in the order they are written.
func (w *workload) groups() []*options {
	return []*options{&w.head, &w.scale, &w.container, &w.sidecars, &w.inits, &w.volumes, &w.pod, &w.selection, &w.meta, &w.tail}
}

// startWorkload checks a workload's name and claims its metadata.
func (g *gen) startWorkload(kind string, d *decl, m *metav1.ObjectMeta) (*workload, string) {
	name := m.Name
	switch {
	case !validLabel(name):
		return nil, fmt.Sprintf("its name %q is not a DNS-1123 label, which a component's is", name)
	case g.handles.workload(name) != nil:
		return nil, fmt.Sprintf("another workload is named %q, and a component's name is unique", name)
	}
	w := &workload{kind: kind, name: name, d: d, objectLabels: maps.Clone(m.Labels)}
	if maps.Equal(m.Labels, g.builderLabels(name)) {
		w.objectLabels = g.builderLabels(name)
	}
	return w, g.takeMeta(m, name, &w.meta, metaRules{labels: true, annotations: true})
}

// takeSelector claims a pod selector's labels: none when they are the
// builder's, app.Selector otherwise. Match expressions stay for an Edit.
func (g *gen) takeSelector(w *workload, s *metav1.LabelSelector) string {
	if s == nil || len(s.MatchLabels) == 0 {
		return "its selector has no matchLabels"
	}
	w.selector = maps.Clone(s.MatchLabels)
	if !maps.Equal(s.MatchLabels, g.selector(w.name)) {
		w.selectorSet = true
		w.selection.addOpt(g.labelsOption("Selector", s.MatchLabels, w.name+"Selector", &w.selection))
	}
	s.MatchLabels = nil
	return ""
}

// takeReplicas turns spec.replicas into app.Replicas.
func (w *workload) takeReplicas(r **int32) {
	if *r != nil {
		w.scale.add(appCall("Replicas", jen.Lit(int(**r))))
		w.replicas, *r = true, nil
	}
}

// finish writes the workload's call: Zero for its explicit zero values
// and Edit for what no option said.
func (g *gen) finishWorkload(w *workload, orig, left any, extra ...jen.Code) (built, string) {
	if why := g.tail(&w.tail, w.kind, w.d, orig, left, w.readWrite); why != "" {
		return built{}, why
	}
	all := &options{}
	for _, grp := range w.groups() {
		all.merge(grp)
	}
	selector := w.selector
	if selector == nil {
		selector = g.selector(w.name) // a Job's and a CronJob's: what AllowTraffic selects them by
	}
	h := &handle{kind: w.kind, name: w.name, ports: w.ports, replicas: w.replicas, selector: selector, podLabels: w.podLabels}
	args := []func() jen.Code{lit(jen.Lit(w.name))}
	for _, e := range extra {
		args = append(args, lit(e))
	}
	return all.builtCall(w.kind, h, args...), ""
}

// tail adds app.Zero for the explicit zero values of d that no option
// writes and app.Edit for the fields left holds.
func (g *gen) tail(o *options, kind string, d *decl, orig, left any, covered []string) string {
	var zeros []jen.Code
	for _, p := range explicitZeros(d.obj.Object, reflect.TypeOf(orig).Elem()) {
		if !slices.Contains(covered, p) {
			zeros = append(zeros, jen.Lit(p))
		}
	}
	if len(zeros) > 0 {
		o.add(appCallLong("Zero", zeros...))
	}
	l := &literal{image: g.images.ref}
	edit, err := editOption(kind, orig, left, l)
	if err != nil {
		return err.Error()
	}
	if edit != nil {
		if l.usedImage {
			return "an Edit would name a container image"
		}
		o.add(edit)
	}
	return ""
}

// deployment recognises a.Deployment(name, ...).
func (g *gen) deployment(d *decl) (built, string) {
	orig := d.typed.(*appsv1.Deployment)
	left := orig.DeepCopy()
	w, why := g.startWorkload("Deployment", d, &left.ObjectMeta)
	why = firstOf(why, func() string { return g.takeSelector(w, left.Spec.Selector) },
		func() string { return g.takePod(w, &left.Spec.Template, "") })
	if why != "" {
		return built{}, why
	}
	w.takeReplicas(&left.Spec.Replicas)
	if left.Spec.Strategy == (appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}) {
		w.scale.add(appCall("Recreate"))
		left.Spec.Strategy = appsv1.DeploymentStrategy{}
	}
	return g.finishWorkload(w, orig, left)
}

// daemonSet recognises a.DaemonSet(name, ...).
func (g *gen) daemonSet(d *decl) (built, string) {
	orig := d.typed.(*appsv1.DaemonSet)
	left := orig.DeepCopy()
	w, why := g.startWorkload("DaemonSet", d, &left.ObjectMeta)
	why = firstOf(why, func() string { return g.takeSelector(w, left.Spec.Selector) },
		func() string { return g.takePod(w, &left.Spec.Template, "") })
	if why != "" {
		return built{}, why
	}
	return g.finishWorkload(w, orig, left)
}

// statefulSet recognises a.StatefulSet(name, ...), its claim templates
// included.
func (g *gen) statefulSet(d *decl) (built, string) {
	orig := d.typed.(*appsv1.StatefulSet)
	left := orig.DeepCopy()
	w, why := g.startWorkload("StatefulSet", d, &left.ObjectMeta)
	why = firstOf(why, func() string { return g.takeSelector(w, left.Spec.Selector) },
		func() string { return g.claimTemplates(w, left.Spec.VolumeClaimTemplates, left.Spec.Template.Spec) },
		func() string { return g.takePod(w, &left.Spec.Template, "") })
	if why != "" {
		return built{}, why
	}
	w.takeReplicas(&left.Spec.Replicas)
	if s := left.Spec.ServiceName; s != w.name {
		if !validLabel(s) {
			return built{}, fmt.Sprintf("its governing service %q is not a DNS-1123 label", s)
		}
		w.scale.add(appCall("GoverningService", jen.Lit(s)))
	}
	left.Spec.ServiceName = ""
	return g.finishWorkload(w, orig, left)
}

// claimTemplates claims a StatefulSet's claim templates as
// app.ClaimTemplate options: each in place of its mount when the main
// container mounts every template once, plainly and in order, else with
// no path, mounted by app.Mount.
func (g *gen) claimTemplates(w *workload, pvcs []corev1.PersistentVolumeClaim, pod corev1.PodSpec) string {
	w.templates = map[string]bool{}
	inline := templatesInline(pvcs, pod)
	if inline {
		w.inlineTemplates = map[string]func(path string) jen.Code{}
	}
	for i := range pvcs {
		p := &pvcs[i]
		name := p.Name
		if !validLabel(name) || w.templates[name] {
			return fmt.Sprintf("claim template %q is not a DNS-1123 label or is declared twice", name)
		}
		var o options
		storage, ok := claimStorage(&p.Spec)
		if !ok {
			return fmt.Sprintf("claim template %q has no storage request or no access modes", name)
		}
		o.add(storage...)
		if why := g.takeMeta(&p.ObjectMeta, w.name, &o, metaRules{labels: true, annotations: true}); why != "" {
			return "claim template " + name + ": " + why
		}
		w.templates[name] = true
		w.volumes.refs, w.volumes.uses = append(w.volumes.refs, o.refs...), append(w.volumes.uses, o.uses...)
		template := func(path string) jen.Code {
			return appCallLong("ClaimTemplate", append([]jen.Code{jen.Lit(name), jen.Lit(path)}, o.render()...)...)
		}
		if inline {
			w.inlineTemplates[name] = template
			continue
		}
		w.volumes.addOpt(func() jen.Code { return template("") })
	}
	return ""
}

// templatesInline reports whether the main container mounts each claim
// template once, with nothing but its path, in template order, and no
// other container mounts one.
func templatesInline(pvcs []corev1.PersistentVolumeClaim, pod corev1.PodSpec) bool {
	names := make([]string, len(pvcs))
	for i, p := range pvcs {
		names[i] = p.Name
	}
	var mounted []string
	for i, c := range slices.Concat(pod.Containers, pod.InitContainers) {
		for _, m := range c.VolumeMounts {
			if !slices.Contains(names, m.Name) {
				continue
			}
			if i != 0 || !reflect.DeepEqual(m, corev1.VolumeMount{Name: m.Name, MountPath: m.MountPath}) {
				return false
			}
			mounted = append(mounted, m.Name)
		}
	}
	return len(names) > 0 && slices.Equal(mounted, names)
}

// job recognises a.Job(name, ...).
func (g *gen) job(d *decl) (built, string) {
	orig := d.typed.(*batchv1.Job)
	left := orig.DeepCopy()
	w, why := g.startWorkload("Job", d, &left.ObjectMeta)
	if why = firstOf(why, func() string { return g.jobSpec(w, &left.Spec) }); why != "" {
		return built{}, why
	}
	return g.finishWorkload(w, orig, left)
}

// cronJob recognises a.CronJob(name, schedule, ...).
func (g *gen) cronJob(d *decl) (built, string) {
	orig := d.typed.(*batchv1.CronJob)
	left := orig.DeepCopy()
	w, why := g.startWorkload("CronJob", d, &left.ObjectMeta)
	if why != "" {
		return built{}, why
	}
	spec := &left.Spec
	schedule := spec.Schedule
	if schedule == "" {
		return built{}, "it has no schedule"
	}
	g.cronOptions(w, spec)
	if !maps.Equal(spec.JobTemplate.Labels, w.objectLabels) {
		w.scale.addOpt(g.labelsOption("JobLabels", spec.JobTemplate.Labels, w.name+"JobLabels", &w.scale))
	}
	spec.Schedule, spec.JobTemplate.Labels = "", nil
	if why := g.jobSpec(w, &spec.JobTemplate.Spec); why != "" {
		return built{}, why
	}
	return g.finishWorkload(w, orig, left, jen.Lit(schedule))
}

// cronOptions claims the concurrency policy, history limits and time
// zone of a CronJob.
func (g *gen) cronOptions(w *workload, spec *batchv1.CronJobSpec) {
	if c := spec.ConcurrencyPolicy; c != batchv1.ForbidConcurrent {
		w.scale.add(appCall("Concurrency", jen.Lit(string(c))))
	}
	spec.ConcurrencyPolicy = ""
	if s, f := spec.SuccessfulJobsHistoryLimit, spec.FailedJobsHistoryLimit; s != nil && f != nil && *s >= 0 && *f >= 0 {
		w.scale.add(appCall("JobHistory", jen.Lit(int(*s)), jen.Lit(int(*f))))
		spec.SuccessfulJobsHistoryLimit, spec.FailedJobsHistoryLimit = nil, nil
	}
	if tz := spec.TimeZone; tz != nil && *tz != "" {
		w.scale.add(appCall("TimeZone", jen.Lit(*tz)))
		spec.TimeZone = nil
	}
}

// jobSpec claims what Job and CronJob share: the job settings and the pod
// template, whose restart policy the builders write as Never by default.
func (g *gen) jobSpec(w *workload, spec *batchv1.JobSpec) string {
	for _, f := range []struct {
		method string
		v      **int32
	}{{"BackoffLimit", &spec.BackoffLimit}, {"Completions", &spec.Completions}, {"Parallelism", &spec.Parallelism}, {"TTLAfterFinished", &spec.TTLSecondsAfterFinished}} {
		if *f.v != nil && **f.v >= 0 {
			w.scale.add(appCall(f.method, jen.Lit(int(**f.v))))
			*f.v = nil
		}
	}
	if a := spec.ActiveDeadlineSeconds; a != nil && *a >= 0 {
		w.scale.add(appCall("ActiveDeadline", jen.Lit(int(*a))))
		spec.ActiveDeadlineSeconds = nil
	}
	return g.takePod(w, &spec.Template, corev1.RestartPolicyNever)
}

// firstOf returns why when it is not empty, else the first reason the
// steps give, running them in order until one gives one.
func firstOf(why string, steps ...func() string) string {
	for _, s := range steps {
		if why != "" {
			return why
		}
		why = s()
	}
	return why
}

// isAppsKind reports whether kind selects its pods with spec.selector.
func isAppsKind(kind string) bool {
	return kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet"
}
