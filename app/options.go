package app

import (
	"maps"
	"slices"
)

// Handle is anything declared on an App that others can refer to: a
// workload, ConfigMap, Secret, claim, service account, role or service.
// Name is its object name; Kind its Kubernetes kind.
type Handle interface {
	Name() string
	Kind() string
}

// WorkloadOption configures a Deployment, StatefulSet, DaemonSet, Job or
// CronJob, or one container of it inside Sidecar and InitContainer.
type WorkloadOption interface{ applyWorkload(*Workload) }

// ServiceOption configures a Service.
type ServiceOption interface{ applyService(*serviceSpec) }

// ConfigMapOption configures a ConfigMap.
type ConfigMapOption interface{ applyConfigMap(*configMapSpec) }

// SecretOption configures a Secret declared by source.
type SecretOption interface{ applySecret(*secretSpec) }

// ClaimOption configures a PersistentVolumeClaim or a StatefulSet's claim
// template.
type ClaimOption interface{ applyClaim(*claimSpec) }

// AutoscalerOption configures a HorizontalPodAutoscaler.
type AutoscalerOption interface{ applyAutoscaler(*autoscalerSpec) }

// IngressOption configures an Ingress.
type IngressOption interface{ applyIngress(*ingressSpec) }

// ServiceAccountOption configures a ServiceAccount.
type ServiceAccountOption interface{ applyServiceAccount(*serviceAccountSpec) }

// common holds what every builder accepts: explicit dependencies, extra
// annotations, stated labels, explicit zero values and edits.
type common struct {
	deps        []string
	annotations map[string]string
	// labels replace the builder labels when labelsSet (nil: none).
	labels    map[string]string
	labelsSet bool
	zeros     []string
	edits     []edit
	errs      []string
}

// CommonOption is accepted by every builder: DependsOn, Annotation,
// NoWait, Labels, Zero and Edit make one.
type CommonOption struct{ set func(*common) }

func (o CommonOption) applyService(s *serviceSpec)               { o.set(&s.common) }
func (o CommonOption) applyConfigMap(c *configMapSpec)           { o.set(&c.common) }
func (o CommonOption) applySecret(s *secretSpec)                 { o.set(&s.common) }
func (o CommonOption) applyClaim(c *claimSpec)                   { o.set(&c.common) }
func (o CommonOption) applyAutoscaler(s *autoscalerSpec)         { o.set(&s.common) }
func (o CommonOption) applyIngress(s *ingressSpec)               { o.set(&s.common) }
func (o CommonOption) applyServiceAccount(s *serviceAccountSpec) { o.set(&s.common) }
func (o CommonOption) applyRoute(r *routeSpec)                   { o.set(&r.common) }

func (o CommonOption) applyWorkload(w *Workload) {
	if w.cur != w.main {
		w.fail("workload options (DependsOn, Annotation, NoWait, Labels, Zero, Edit) apply to the workload, not to one container")
		return
	}
	o.set(&w.common)
}

// DependsOn records explicit dependencies: Piceli applies the named
// components (and waits for them to be ready) before this object. The names
// appear in Object.DependsOn and, for workloads, ComponentInfo.DependsOn.
// Nil handles are ignored; ordering by kind (config before workloads, ...)
// needs no DependsOn.
func DependsOn(handles ...Handle) CommonOption {
	return CommonOption{set: func(c *common) {
		for _, h := range handles {
			if h != nil && !slices.Contains(c.deps, h.Name()) {
				c.deps = append(c.deps, h.Name())
			}
		}
	}}
}

// Annotation adds an annotation to the declared object (for a workload, to
// the workload object, not its pods: see PodAnnotations).
func Annotation(key, value string) CommonOption {
	return CommonOption{set: func(c *common) {
		if c.annotations == nil {
			c.annotations = map[string]string{}
		}
		c.annotations[key] = value
	}}
}

// Labels gives the declared object exactly these labels instead of the
// builder labels (app.kubernetes.io/name, part-of and managed-by), for an
// object that must keep the labels it already has; an empty or nil map
// means no labels. It changes the object's own metadata only: what selects
// a workload's pods is Selector, what they carry PodLabels. The map is
// copied.
func Labels(labels map[string]string) CommonOption {
	return CommonOption{set: func(c *common) {
		c.errs = append(c.errs, labelErrors("labels", labels)...)
		c.labels, c.labelsSet = maps.Clone(labels), true
		if len(c.labels) == 0 {
			c.labels = nil
		}
	}}
}

// NoWait makes Piceli apply the declared object in its wave without waiting
// for it to be ready: it annotates the object AnnotationWait: "false". Use
// it for an object whose readiness depends on something the cluster may
// lack, such as a LoadBalancer Service where no load-balancer controller
// runs. The annotation beats [release] wait in release.toml, which sets the
// default for objects without one; Annotation(AnnotationWait, "true") waits
// for an object under wait = "none". On a workload it applies to the
// workload object; a ClaimTemplate ignores it, as the StatefulSet is what
// is waited for. Objects that DependsOn it still come in a later wave, but
// that wave does not wait for it to be ready.
func NoWait() CommonOption {
	return Annotation(AnnotationWait, "false")
}

// labelsOf returns the labels of a builder object of component: the
// stated ones, or the builder labels.
func (a *App) labelsOf(component string, c *common) map[string]string {
	if c != nil && c.labelsSet {
		return maps.Clone(c.labels)
	}
	return a.labels(component)
}
