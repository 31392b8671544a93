package app

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Deployment declares a Deployment: a component of interchangeable pods.
// Image is required; the pod and container options apply, Replicas and
// Recreate too. ClaimTemplate and the Job options do not.
func (a *App) Deployment(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("Deployment", name, opts)
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: a.objectMeta(w),
		Spec: appsv1.DeploymentSpec{
			Replicas: w.replicas,
			Selector: &metav1.LabelSelector{MatchLabels: w.selectorLabels(a)},
			Template: a.podTemplate(w, ""),
		},
	}
	if w.recreate {
		d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	}
	a.addWorkload(w, d)
	return w
}

// Recreate makes a Deployment stop every old pod before starting new ones
// on a change, instead of rolling pod by pod: for an app whose versions
// must not run side by side.
func Recreate() WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("Recreate") && w.only("Recreate", "Deployment") {
			w.recreate = true
		}
	})
}
