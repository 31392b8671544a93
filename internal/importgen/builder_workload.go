package importgen

import (
	"maps"

	"github.com/dave/jennifer/jen"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// option is a builder option rendered once identifiers are known.
type option func() jen.Code

// fixed is an option that needs no identifiers.
func fixed(c jen.Code) option { return func() jen.Code { return c } }

// workload collects the options of a Deployment, StatefulSet, Job or
// CronJob in the order Build writes them: image and command, scale,
// container details, then annotations.
type workload struct {
	name                     string
	head, scale, body, notes []option
	ports                    []port
	replicas                 bool
}

// built returns the call a.method(name, extra..., options...) and the
// workload's handle.
func (w *workload) built(kind string, extra ...jen.Code) built {
	h := &handle{kind: kind, name: w.name, ports: w.ports, replicas: w.replicas}
	var opts []option
	for _, group := range [][]option{w.head, w.scale, w.body, w.notes} {
		opts = append(opts, group...)
	}
	return built{handle: h, code: call(kind, func() []jen.Code {
		args := append([]jen.Code{jen.Lit(w.name)}, extra...)
		for _, o := range opts {
			args = append(args, o())
		}
		return args
	})}
}

// startWorkload checks a workload's name and metadata and keeps its
// annotations as options.
func (g *gen) startWorkload(m *metav1.ObjectMeta) (*workload, bool) {
	name := m.Name
	if !validLabel(name) || g.handles.workload(name) != nil {
		return nil, false
	}
	notes, ok := g.takeMeta(m, name, name, true)
	w := &workload{name: name}
	for _, n := range notes {
		w.notes = append(w.notes, fixed(n))
	}
	return w, ok
}

// takeSelector checks and clears a builder pod selector.
func (g *gen) takeSelector(s **metav1.LabelSelector, name string) bool {
	if *s == nil || len((*s).MatchExpressions) > 0 || !maps.Equal((*s).MatchLabels, g.selector(name)) {
		return false
	}
	*s = nil
	return true
}

// takeReplicas turns spec.replicas into app.Replicas.
func (w *workload) takeReplicas(r **int32) {
	if *r != nil {
		w.scale = append(w.scale, fixed(appCall("Replicas", jen.Lit(int(**r)))))
		w.replicas, *r = true, nil
	}
}

// deployment recognises a.Deployment(name, ...).
func (g *gen) deployment(obj runtime.Object) (built, bool) {
	d := obj.(*appsv1.Deployment).DeepCopy()
	w, ok := g.startWorkload(&d.ObjectMeta)
	if !ok || !g.takeSelector(&d.Spec.Selector, w.name) || !g.podTemplate(w, &d.Spec.Template, corev1.RestartPolicyAlways, nil) {
		return built{}, false
	}
	w.takeReplicas(&d.Spec.Replicas)
	return w.built("Deployment"), rest(d)
}

// statefulSet recognises a.StatefulSet(name, ...), its claim templates
// included.
func (g *gen) statefulSet(obj runtime.Object) (built, bool) {
	s := obj.(*appsv1.StatefulSet).DeepCopy()
	w, ok := g.startWorkload(&s.ObjectMeta)
	if !ok || s.Spec.ServiceName != w.name || !g.takeSelector(&s.Spec.Selector, w.name) {
		return built{}, false
	}
	templates, ok := g.claimTemplates(s.Spec.VolumeClaimTemplates, w.name)
	if !ok || !g.podTemplate(w, &s.Spec.Template, corev1.RestartPolicyAlways, templates) {
		return built{}, false
	}
	w.takeReplicas(&s.Spec.Replicas)
	s.Spec.ServiceName, s.Spec.VolumeClaimTemplates = "", nil
	return w.built("StatefulSet"), rest(s)
}

// claimTemplate is a StatefulSet claim template: its options and whether
// a mount used it.
type claimTemplate struct {
	opts    []jen.Code
	mounted bool
	order   int
}

// claimTemplates reads a StatefulSet's claim templates.
func (g *gen) claimTemplates(pvcs []corev1.PersistentVolumeClaim, component string) (map[string]*claimTemplate, bool) {
	out := map[string]*claimTemplate{}
	for i := range pvcs {
		p := pvcs[i].DeepCopy()
		name := p.Name
		if !validLabel(name) || out[name] != nil || !g.takeTemplateMeta(&p.ObjectMeta, name, component) {
			return nil, false
		}
		opts, ok := claimOptions(&p.Spec)
		if !ok || !rest(p) {
			return nil, false
		}
		out[name] = &claimTemplate{opts: opts, order: i}
	}
	return out, true
}

// job recognises a.Job(name, ...).
func (g *gen) job(obj runtime.Object) (built, bool) {
	j := obj.(*batchv1.Job).DeepCopy()
	w, ok := g.startWorkload(&j.ObjectMeta)
	if !ok || !g.jobSpec(w, &j.Spec) {
		return built{}, false
	}
	return w.built("Job"), rest(j)
}

// cronJob recognises a.CronJob(name, schedule, ...).
func (g *gen) cronJob(obj runtime.Object) (built, bool) {
	c := obj.(*batchv1.CronJob).DeepCopy()
	w, ok := g.startWorkload(&c.ObjectMeta)
	schedule := c.Spec.Schedule
	if !ok || schedule == "" || c.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		return built{}, false
	}
	if !g.takeTemplateMeta(&c.Spec.JobTemplate.ObjectMeta, "", w.name) || !g.jobSpec(w, &c.Spec.JobTemplate.Spec) {
		return built{}, false
	}
	c.Spec.Schedule, c.Spec.ConcurrencyPolicy = "", ""
	return w.built("CronJob", jen.Lit(schedule)), rest(c)
}

// jobSpec reads what Job and CronJob share: the backoff limit and the pod
// template.
func (g *gen) jobSpec(w *workload, spec *batchv1.JobSpec) bool {
	if spec.BackoffLimit != nil {
		w.scale = append(w.scale, fixed(appCall("BackoffLimit", jen.Lit(int(*spec.BackoffLimit)))))
		spec.BackoffLimit = nil
	}
	return g.podTemplate(w, &spec.Template, corev1.RestartPolicyNever, nil) && rest(spec)
}
