package app

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// autoscalerSpec is what AutoscalerOptions set.
type autoscalerSpec struct {
	common
	metrics []autoscalingv2.MetricSpec
	errs    []string
}

// autoscalerOption adapts a function to AutoscalerOption.
type autoscalerOption func(*autoscalerSpec)

func (o autoscalerOption) applyAutoscaler(s *autoscalerSpec) { o(s) }

// CPUUtilization scales to keep average CPU use at percent of the
// containers' CPU requests (so the workload needs Requests).
func CPUUtilization(percent int32) AutoscalerOption {
	return utilization(corev1.ResourceCPU, percent)
}

// MemoryUtilization scales to keep average memory use at percent of the
// containers' memory requests.
func MemoryUtilization(percent int32) AutoscalerOption {
	return utilization(corev1.ResourceMemory, percent)
}

func utilization(res corev1.ResourceName, percent int32) AutoscalerOption {
	return autoscalerOption(func(s *autoscalerSpec) {
		if percent < 1 {
			s.errs = append(s.errs, fmt.Sprintf("%s utilization %d must be at least 1", res, percent))
			return
		}
		s.metrics = append(s.metrics, autoscalingv2.MetricSpec{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: res, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent,
			}},
		})
	})
}

// Autoscaler declares an autoscaling/v2 HorizontalPodAutoscaler named after
// a Deployment or StatefulSet, scaling it between min and max replicas
// (80% CPU when no metric option is given). The workload's replicas field is
// left out, even when Replicas set it, so the two never fight over it.
// The returned handle names it in an Environment's SetScale.
func (a *App) Autoscaler(w *Workload, min, max int32, opts ...AutoscalerOption) *Autoscaler {
	if w == nil {
		a.errorf("autoscaler: workload is nil")
		return &Autoscaler{}
	}
	spec := autoscalerSpec{}
	for _, o := range opts {
		if o != nil {
			o.applyAutoscaler(&spec)
		}
	}
	spec.errs = append(spec.errs, scaleErrors(w, min, max)...)
	if len(spec.metrics) == 0 {
		CPUUtilization(80).applyAutoscaler(&spec)
	}
	a.report("HorizontalPodAutoscaler", w.name, spec.errs)
	if a.claim("HorizontalPodAutoscaler", w.name) {
		a.add(w.name, a.autoscalerObject(w, min, max, spec), &spec.common).about = []*Workload{w}
		releaseReplicas(w.obj)
		w.autoscaled = true
	}
	return &Autoscaler{name: w.name}
}

// Autoscaler is a handle to a declared HorizontalPodAutoscaler, named after
// the workload it scales.
type Autoscaler struct{ name string }

// Name returns the autoscaler's name.
func (h *Autoscaler) Name() string { return h.name }

// Kind returns "HorizontalPodAutoscaler".
func (h *Autoscaler) Kind() string { return "HorizontalPodAutoscaler" }

// scaleErrors checks the autoscaler's target and bounds.
func scaleErrors(w *Workload, min, max int32) []string {
	var errs []string
	if w.kind != "Deployment" && w.kind != "StatefulSet" {
		errs = append(errs, fmt.Sprintf("target %s %q is not a Deployment or StatefulSet", lower(w.kind), w.name))
	}
	if min < 1 || max < min {
		errs = append(errs, fmt.Sprintf("replicas range %d-%d needs 1 <= min <= max", min, max))
	}
	return errs
}

// autoscalerObject returns the HorizontalPodAutoscaler.
func (a *App) autoscalerObject(w *Workload, min, max int32, spec autoscalerSpec) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: meta(w.name, a.labelsOf(w.name, &spec.common), spec.annotations),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: w.kind, Name: w.name},
			MinReplicas:    &min,
			MaxReplicas:    max,
			Metrics:        spec.metrics,
		},
	}
}

// releaseReplicas leaves an autoscaled workload's replicas to its
// autoscaler so the two do not fight over the field.
func releaseReplicas(obj any) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.Spec.Replicas = nil
	case *appsv1.StatefulSet:
		o.Spec.Replicas = nil
	}
}
