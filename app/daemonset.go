package app

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DaemonSet declares a DaemonSet: one pod on every node its NodeSelector,
// Affinity and Tolerations allow, such as a log shipper or a node
// exporter. Image is required; the pod and container options apply.
// Replicas, ClaimTemplate and the Job options do not.
func (a *App) DaemonSet(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("DaemonSet", name, opts)
	a.addWorkload(w, &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: a.objectMeta(w),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: w.selectorLabels(a)},
			Template: a.podTemplate(w, ""),
		},
	})
	return w
}
