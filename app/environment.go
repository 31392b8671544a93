package app

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Override is one change an Environment makes to a declared object. Each
// names its object by the handle its builder returned, so an override of a
// component the app does not declare is a compile error, not an ignored
// key. SetReplicas, SetScale, SetRequests, SetLimits, SetData, SetHost,
// SetNodeSelector, Drop and EditOf make one.
type Override struct {
	what   string // how messages name it: "SetReplicas(deployment api)"
	target Handle
	// drop is the workload Drop removes; nil for an edit.
	drop *Workload
	// edit changes the target's typed object; a returns to the app.
	edit func(a *App, obj runtime.Object) error
}

// Environment declares what the named environment of release.toml's
// [environments] changes in the app: the overrides, applied in order when
// Piceli renders that environment (Context.Environment) and ignored for
// every other, and for a spec that declares no [environments] (as for a
// test that copies the spec to one target). The name must be one
// release.toml declares when it declares any; an override
// that does not fit its object (replicas of an autoscaled workload, a
// ConfigMap key that does not exist) is reported by Composition, naming
// the environment, the override and the object.
func (a *App) Environment(name string, overrides ...Override) {
	if a.environments == nil {
		a.environments = map[string][]Override{}
	}
	if _, dup := a.environments[name]; dup {
		a.errorf("environment %q declared twice", name)
		return
	}
	a.environments[name] = overrides
	a.envOrder = append(a.envOrder, name)
}

// SetReplicas runs n pods of a Deployment or StatefulSet in the
// environment. A workload with an Autoscaler takes SetScale instead.
func SetReplicas(w *Workload, n int32) Override {
	return Override{what: "SetReplicas", target: w, edit: func(_ *App, obj runtime.Object) error {
		if w.autoscaled {
			return fmt.Errorf("its replicas belong to its autoscaler; use SetScale")
		}
		if n < 0 {
			return fmt.Errorf("replicas %d is negative", n)
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			o.Spec.Replicas = &n
		case *appsv1.StatefulSet:
			o.Spec.Replicas = &n
		default:
			return fmt.Errorf("a %s has no replicas", w.kind)
		}
		return nil
	}}
}

// SetScale bounds an Autoscaler between min and max replicas in the
// environment.
func SetScale(h *Autoscaler, min, max int32) Override {
	return Override{what: "SetScale", target: h, edit: func(_ *App, obj runtime.Object) error {
		if min < 1 || max < min {
			return fmt.Errorf("replicas range %d-%d needs 1 <= min <= max", min, max)
		}
		hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
		hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas = &min, max
		return nil
	}}
}

// SetRequests sets the CPU and memory requests of a workload's main
// container in the environment ("" leaves one as declared).
func SetRequests(w *Workload, cpu, memory string) Override {
	return setResources("SetRequests", w, cpu, memory, func(r *corev1.ResourceRequirements) *corev1.ResourceList { return &r.Requests })
}

// SetLimits sets the CPU and memory limits of a workload's main container
// in the environment ("" leaves one as declared).
func SetLimits(w *Workload, cpu, memory string) Override {
	return setResources("SetLimits", w, cpu, memory, func(r *corev1.ResourceRequirements) *corev1.ResourceList { return &r.Limits })
}

func setResources(what string, w *Workload, cpu, memory string, list func(*corev1.ResourceRequirements) *corev1.ResourceList) Override {
	return Override{what: what, target: w, edit: func(_ *App, obj runtime.Object) error {
		c := mainContainer(obj, w)
		if c == nil {
			return fmt.Errorf("main container %q not found", w.main.c.Name)
		}
		l := list(&c.Resources)
		for _, q := range []struct {
			name  corev1.ResourceName
			value string
		}{{corev1.ResourceCPU, cpu}, {corev1.ResourceMemory, memory}} {
			if q.value == "" {
				continue
			}
			v, err := resource.ParseQuantity(q.value)
			if err != nil {
				return fmt.Errorf("%s %q: %v", q.name, q.value, err)
			}
			if *l == nil {
				*l = corev1.ResourceList{}
			}
			(*l)[q.name] = v
		}
		return nil
	}}
}

// SetData sets the value of a key the ConfigMap declares, in the
// environment. A key it does not declare is reported: a misspelt key never
// adds a second entry.
func SetData(c *ConfigMap, key, value string) Override {
	return Override{what: fmt.Sprintf("SetData(%q)", key), target: c, edit: func(_ *App, obj runtime.Object) error {
		cm := obj.(*corev1.ConfigMap)
		if _, ok := cm.Data[key]; !ok {
			return fmt.Errorf("key %q is not declared (declared: %s)", key, strings.Join(slices.Sorted(maps.Keys(cm.Data)), ", "))
		}
		cm.Data[key] = value
		return nil
	}}
}

// SetHost serves the Ingress's routes and TLS for host from under host to
// instead, in the environment.
func SetHost(i *Ingress, from, to string) Override {
	return Override{what: fmt.Sprintf("SetHost(%q)", from), target: i, edit: func(_ *App, obj runtime.Object) error {
		if to != "" && len(validation.IsDNS1123Subdomain(to)) > 0 {
			return fmt.Errorf("host %q is not a DNS name", to)
		}
		ing := obj.(*networkingv1.Ingress)
		found := false
		for j := range ing.Spec.Rules {
			if ing.Spec.Rules[j].Host == from {
				ing.Spec.Rules[j].Host, found = to, true
			}
		}
		for j := range ing.Spec.TLS {
			for k, h := range ing.Spec.TLS[j].Hosts {
				if h == from {
					ing.Spec.TLS[j].Hosts[k] = to
				}
			}
		}
		if !found {
			return fmt.Errorf("no route for host %q", from)
		}
		return nil
	}}
}

// SetNodeSelector schedules the workload's pods on nodes with these labels
// in the environment, replacing any declared node selector (an empty map
// removes it).
func SetNodeSelector(w *Workload, labels map[string]string) Override {
	return Override{what: "SetNodeSelector", target: w, edit: func(_ *App, obj runtime.Object) error {
		spec := podSpec(obj)
		if spec == nil {
			return fmt.Errorf("a %s has no pods", w.kind)
		}
		spec.NodeSelector = maps.Clone(labels)
		if len(spec.NodeSelector) == 0 {
			spec.NodeSelector = nil
		}
		return nil
	}}
}

// Drop leaves the workload out of the environment, together with what
// exists only for it: its Service, Autoscaler, DisruptionBudget and the
// traffic rules to or from it. An object that depends on it (DependsOn) is
// reported.
func Drop(w *Workload) Override {
	return Override{what: "Drop", target: w, drop: w}
}

// EditOf is the typed escape hatch of environments: f edits the
// k8s.io/api object of h (an *appsv1.Deployment for a Deployment's
// workload, a *corev1.Service for a Service, ...) in the environment, for
// a field no override sets. A T that is not the object's type is reported.
func EditOf[T any](h Handle, f func(*T)) Override {
	return Override{what: "EditOf", target: h, edit: func(_ *App, obj runtime.Object) error {
		o, ok := any(obj).(*T)
		if !ok {
			return fmt.Errorf("EditOf takes %s, but the object is a %T", reflect.TypeFor[*T](), obj)
		}
		if f != nil {
			f(o)
		}
		return nil
	}}
}

// applyEnvironment checks the declared environments against ctx and
// applies the overrides of the one being rendered.
func (a *App) applyEnvironment(ctx *Context) []error {
	if ctx == nil || len(a.envOrder) == 0 || len(ctx.Environments) == 0 {
		return nil // a spec without [environments] renders none
	}
	var errs []error
	for _, name := range a.envOrder {
		if !slices.Contains(ctx.Environments, name) {
			declared := "none"
			if len(ctx.Environments) > 0 {
				declared = strings.Join(ctx.Environments, ", ")
			}
			errs = append(errs, fmt.Errorf("environment %q is not declared in [environments] of release.toml (declared: %s)", name, declared))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, o := range a.environments[ctx.Environment] {
		if err := a.override(o); err != nil {
			errs = append(errs, fmt.Errorf("environment %q: %s: %w", ctx.Environment, o.describe(), err))
		}
	}
	return errs
}

// describe names the override and its object: "SetReplicas of deployment api".
func (o Override) describe() string {
	if o.target == nil || reflect.ValueOf(o.target).IsNil() {
		return o.what
	}
	return fmt.Sprintf("%s of %s %q", o.what, lower(o.target.Kind()), o.target.Name())
}

// override applies one override to the app's entries.
func (a *App) override(o Override) error {
	if o.target == nil || reflect.ValueOf(o.target).IsNil() {
		return fmt.Errorf("the handle is nil")
	}
	if o.drop != nil {
		return a.dropWorkload(o.drop)
	}
	e := a.entryOf(o.target)
	if e == nil {
		return fmt.Errorf("the app declares no such object (a reference, or one whose declaration failed)")
	}
	return o.edit(a, e.typed)
}

// entryOf returns the builder entry of a handle's object, nil when there
// is none.
func (a *App) entryOf(h Handle) *entry {
	for _, e := range a.entries {
		if e.typed == nil {
			continue
		}
		if kind, name := kindName(e.typed); kind == h.Kind() && name == h.Name() {
			return e
		}
	}
	return nil
}

// dropWorkload removes the workload's entries and component, refusing
// when a remaining object depends on one of them.
func (a *App) dropWorkload(w *Workload) error {
	gone := map[string]bool{}
	var kept []*entry
	for _, e := range a.entries {
		if slices.Contains(e.about, w) {
			kind, name := kindName(e.typed)
			gone[name] = true
			gone[kind+"/"+name] = true
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == len(a.entries) {
		return fmt.Errorf("the app declares no such workload")
	}
	for _, e := range kept {
		for _, d := range depsOf(e) {
			if gone[d] {
				return fmt.Errorf("%s depends on it; drop or change that too", e.origin)
			}
		}
	}
	a.entries = kept
	a.components = slices.DeleteFunc(a.components, func(c *component) bool { return c.workload == w })
	delete(a.byName, w.name)
	return nil
}

// podSpec returns the pod spec inside a workload's typed object.
func podSpec(obj runtime.Object) *corev1.PodSpec {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	case *batchv1.Job:
		return &o.Spec.Template.Spec
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec
	}
	return nil
}

// mainContainer returns the workload's main container in its object.
func mainContainer(obj runtime.Object, w *Workload) *corev1.Container {
	spec := podSpec(obj)
	if spec == nil {
		return nil
	}
	for i := range spec.Containers {
		if spec.Containers[i].Name == w.main.c.Name {
			return &spec.Containers[i]
		}
	}
	return nil
}
