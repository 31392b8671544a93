package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Workload is a handle to a declared Deployment, StatefulSet, Job or
// CronJob: a component with one container named after it. Pass it to
// Service, AllowTraffic, Autoscaler, DisruptionBudget or DependsOn.
type Workload struct {
	common
	kind string
	name string

	image          string
	imageSet       bool
	command        []string
	args           []string
	ports          []PortInfo
	env            []corev1.EnvVar
	resources      corev1.ResourceRequirements
	replicas       *int32
	ready          *Probe
	live           *Probe
	volumes        []corev1.Volume
	mounts         []corev1.VolumeMount
	claimTemplates []claimTemplate
	serviceAccount string
	backoffLimit   *int32
	errs           []string

	// obj is the typed object built for the workload, adjusted by later
	// declarations (an Autoscaler clears replicas it did not set).
	obj runtime.Object
}

// Name returns the workload's name, which is also its component name.
func (w *Workload) Name() string { return w.name }

// Kind returns the workload's kind, such as "Deployment".
func (w *Workload) Kind() string { return w.kind }

// Ports returns the container ports the workload declares.
func (w *Workload) Ports() []PortInfo { return append([]PortInfo(nil), w.ports...) }

// workloadOption adapts a function to WorkloadOption.
type workloadOption func(*Workload)

func (o workloadOption) applyWorkload(w *Workload) { o(w) }

// fail records a problem with a workload field.
func (w *Workload) fail(format string, args ...any) {
	w.errs = append(w.errs, fmt.Sprintf(format, args...))
}

// declareWorkload applies options, validates and registers a workload as a
// component. The caller builds the kind's object from it.
func (a *App) declareWorkload(kind, name string, opts []WorkloadOption) *Workload {
	w := &Workload{kind: kind, name: name}
	for _, o := range opts {
		if o != nil {
			o.applyWorkload(w)
		}
	}
	if !w.imageSet {
		w.fail("image is required (app.Image)")
	} else if w.image == "" {
		w.fail("image is empty")
	}
	a.reportName(kind, name, dnsLabel)
	a.report(kind, name, w.errs)
	if a.claim("component", name) {
		a.claim(kind, name)
		a.registerComponent(w)
	}
	return w
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
	case w.ready != nil:
		return w.ready.hint
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

// add registers a workload's typed object, remembering it for later
// adjustment.
func (a *App) addWorkload(w *Workload, obj runtime.Object) {
	w.obj = obj
	a.add(w.name, obj, &w.deps)
}

// podTemplate returns the pod template of a workload.
func (a *App) podTemplate(w *Workload, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: meta("", a.labels(w.name), nil),
		Spec: corev1.PodSpec{
			Containers:         []corev1.Container{w.container()},
			Volumes:            w.volumes,
			ServiceAccountName: w.serviceAccount,
			RestartPolicy:      restart,
		},
	}
}

// container returns the workload's single container.
func (w *Workload) container() corev1.Container {
	c := corev1.Container{
		Name:         w.name,
		Image:        w.image,
		Command:      w.command,
		Args:         w.args,
		Env:          w.env,
		Resources:    w.resources,
		VolumeMounts: w.mounts,
	}
	for _, p := range w.ports {
		c.Ports = append(c.Ports, corev1.ContainerPort{
			Name: p.Name, ContainerPort: p.Port, Protocol: corev1.Protocol(p.Protocol),
		})
	}
	if w.ready != nil {
		c.ReadinessProbe = w.ready.probe()
	}
	if w.live != nil {
		c.LivenessProbe = w.live.probe()
	}
	return c
}
