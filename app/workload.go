package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Workload is a handle to a declared Deployment, StatefulSet, DaemonSet,
// Job or CronJob: a component whose pods run a main container (named after
// it unless ContainerName says otherwise), sidecars and init containers.
// Pass it to Service, AllowTraffic, Autoscaler, DisruptionBudget or
// DependsOn.
type Workload struct {
	common
	kind string
	name string

	// pod holds the pod-level fields options set; containers are
	// assembled from main, sidecars and inits when the object is built.
	pod      corev1.PodSpec
	podNotes map[string]string
	// podLabels and selector are stated with PodLabels and Selector.
	podLabels, selector       map[string]string
	podLabelsSet, selectorSet bool

	main     *container
	sidecars []*container
	inits    []*container
	cur      *container // the container options apply to

	ports          []PortInfo
	replicas       *int32
	claimTemplates []claimTemplate
	governing      *string
	recreate       bool
	job            jobOptions
	cron           cronOptions
	restricted     []restriction
	errs           []string

	// obj is the typed object built for the workload, adjusted by later
	// declarations (an Autoscaler clears replicas it did not set).
	obj runtime.Object
	// autoscaled says an Autoscaler owns the replicas.
	autoscaled bool
}

// container is one container of a workload on its way to the pod spec.
type container struct {
	role     string // "" for the main container, "sidecar" or "init container"
	c        corev1.Container
	imageSet bool
	ready    *Probe
	// readWrite indexes the mounts that say readOnly: false.
	readWrite []int
}

// Name returns the workload's name, which is also its component name.
func (w *Workload) Name() string { return w.name }

// Kind returns the workload's kind, such as "Deployment".
func (w *Workload) Kind() string { return w.kind }

// Ports returns the container ports the workload declares, its sidecars'
// included.
func (w *Workload) Ports() []PortInfo { return append([]PortInfo(nil), w.ports...) }

// workloadOption adapts a function to WorkloadOption.
type workloadOption func(*Workload)

func (o workloadOption) applyWorkload(w *Workload) { o(w) }

// fail records a problem with a workload field, naming the container
// when an option of a sidecar or init container caused it.
func (w *Workload) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w.cur != nil && w.cur.role != "" {
		msg = fmt.Sprintf("%s %q: %s", w.cur.role, w.cur.c.Name, msg)
	}
	w.errs = append(w.errs, msg)
}

// podOption reports whether an option of the pod (not of one container)
// may apply here, recording a problem inside Sidecar or InitContainer.
func (w *Workload) podOption(option string) bool {
	if w.cur != w.main {
		w.fail("%s applies to the pod, not to one container", option)
		return false
	}
	return true
}

// declareWorkload applies options, validates and registers a workload as a
// component. The caller builds the kind's object from it.
func (a *App) declareWorkload(kind, name string, opts []WorkloadOption) *Workload {
	w := &Workload{kind: kind, name: name, main: &container{c: corev1.Container{Name: name}}}
	w.cur = w.main
	for _, o := range opts {
		if o != nil {
			o.applyWorkload(w)
		}
	}
	w.check(a)
	w.checkKinds()
	a.reportName(kind, name, dnsLabel)
	a.report(kind, name, w.errs)
	if a.claim("component", name) {
		a.claim(kind, name)
		a.registerComponent(w)
	}
	return w
}

// check records what is wrong with the workload as a whole: images,
// mounts of undeclared volumes and pod labels that miss the selector.
func (w *Workload) check(a *App) {
	names := map[string]bool{}
	for _, c := range w.containers() {
		if names[c.c.Name] {
			w.cur = w.main
			w.fail("container %q declared twice", c.c.Name)
		}
		names[c.c.Name] = true
		w.cur = c
		switch {
		case !c.imageSet:
			w.fail("image is required (app.Image)")
		case c.c.Image == "":
			w.fail("image is empty")
		}
		w.checkMounts(c)
	}
	w.cur = w.main
	if w.kind == "Job" || w.kind == "CronJob" {
		return
	}
	if !w.selectorSet && !w.podLabelsSet {
		return // the builder labels hold the builder selector
	}
	sel, pod := w.selectorLabels(nil), w.podLabelsOf(nil)
	if w.selectorSet && len(sel) == 0 {
		w.fail("selector is empty; a %s selects its pods by at least one label", w.kind)
	}
	if !w.selectorSet {
		sel = a.selector(w.name)
	}
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		if v := sel[k]; pod[k] != v {
			w.fail("pod labels must include the selector's %s=%s", k, v)
		}
	}
}

// containers returns the main container, the sidecars and the init
// containers.
func (w *Workload) containers() []*container {
	return append(append([]*container{w.main}, w.sidecars...), w.inits...)
}

// registerComponent adds the workload's ComponentInfo.
func (a *App) registerComponent(w *Workload) {
	c := &component{workload: w, info: ComponentInfo{
		Name:      w.name,
		Kind:      w.kind,
		Ports:     w.ports,
		Readiness: w.readinessHint(),
	}}
	a.components = append(a.components, c)
	a.byName[w.name] = c
}

// readinessHint describes how Piceli can tell the workload is ready.
func (w *Workload) readinessHint() string {
	switch {
	case w.kind == "Job":
		return "complete"
	case w.kind == "CronJob":
		return "scheduled"
	case w.main.ready != nil:
		return w.main.ready.hint
	}
	return "rollout"
}

// report records errors about a declared object, each prefixed with its
// kind and name.
func (a *App) report(kind, name string, msgs []string) {
	for _, m := range msgs {
		a.errorf("%s %q: %s", strings.ToLower(kind), name, m)
	}
}

// reportName validates a declared object's name with check.
func (a *App) reportName(kind, name string, check func(string) string) bool {
	if msg := check(name); msg != "" {
		a.report(kind, name, []string{"name must be a " + msg})
		return false
	}
	return true
}

// addWorkload registers a workload's typed object, remembering it for
// later adjustment.
func (a *App) addWorkload(w *Workload, obj runtime.Object) {
	w.obj = obj
	w.zeros = append(w.zeros, w.readWriteZeros()...)
	a.add(w.name, obj, &w.common).about = []*Workload{w}
}

// selectorLabels returns the labels that select the workload's pods: the
// stated Selector, or the builder selector (a nil App stands for one
// whose builder labels do not matter).
func (w *Workload) selectorLabels(a *App) map[string]string {
	if w.selectorSet {
		return maps.Clone(w.selector)
	}
	if a == nil {
		return nil
	}
	return a.selector(w.name)
}

// podLabelsOf returns the labels the workload's pods carry: PodLabels,
// else the Selector, else the builder labels.
func (w *Workload) podLabelsOf(a *App) map[string]string {
	switch {
	case w.podLabelsSet:
		return maps.Clone(w.podLabels)
	case w.selectorSet:
		return maps.Clone(w.selector)
	case a == nil:
		return nil
	}
	return a.labels(w.name)
}

// podTemplate returns the pod template of a workload; restart is the
// restart policy its kind writes when RestartPolicy is not given.
func (a *App) podTemplate(w *Workload, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	spec := *w.pod.DeepCopy()
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = restart
	}
	for _, c := range append([]*container{w.main}, w.sidecars...) {
		spec.Containers = append(spec.Containers, *c.c.DeepCopy())
	}
	for _, c := range w.inits {
		spec.InitContainers = append(spec.InitContainers, *c.c.DeepCopy())
	}
	m := metav1.ObjectMeta{Labels: w.podLabelsOf(a), Annotations: maps.Clone(w.podNotes)}
	if len(m.Labels) == 0 {
		m.Labels = nil
	}
	return corev1.PodTemplateSpec{ObjectMeta: m, Spec: spec}
}

// objectMeta returns the workload object's metadata.
func (a *App) objectMeta(w *Workload) metav1.ObjectMeta {
	return meta(w.name, a.labelsOf(w.name, &w.common), w.annotations)
}

// podPath is the JSON path of the pod spec in the workload's object.
func (w *Workload) podPath() string {
	if w.kind == "CronJob" {
		return "spec.jobTemplate.spec.template.spec"
	}
	return "spec.template.spec"
}

// readWriteZeros returns the Zero paths of the mounts that say readOnly:
// false explicitly.
func (w *Workload) readWriteZeros() []string {
	var out []string
	for i, c := range append([]*container{w.main}, w.sidecars...) {
		for _, j := range c.readWrite {
			out = append(out, fmt.Sprintf("%s.containers[%d].volumeMounts[%d].readOnly", w.podPath(), i, j))
		}
	}
	for i, c := range w.inits {
		for _, j := range c.readWrite {
			out = append(out, fmt.Sprintf("%s.initContainers[%d].volumeMounts[%d].readOnly", w.podPath(), i, j))
		}
	}
	return out
}
