package app

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Deployment declares a Deployment: a component of interchangeable pods
// running one container named after it. Image is required; Replicas,
// Ports, Env*, Requests, Limits, Ready, Live, Mount*, RunAs, DependsOn and
// Annotation apply. ClaimTemplate and BackoffLimit do not.
func (a *App) Deployment(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("Deployment", name, opts)
	w.rejectJobOptions(a)
	w.rejectClaimTemplates(a)
	a.addWorkload(w, &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta(name, a.labels(name), w.annotations),
		Spec: appsv1.DeploymentSpec{
			Replicas: w.replicas,
			Selector: &metav1.LabelSelector{MatchLabels: a.selector(name)},
			Template: a.podTemplate(w, corev1.RestartPolicyAlways),
		},
	})
	return w
}

// rejectJobOptions records options that only Jobs and CronJobs take.
func (w *Workload) rejectJobOptions(a *App) {
	if w.backoffLimit != nil {
		a.report(w.kind, w.name, []string{"BackoffLimit applies only to a Job or CronJob"})
	}
}

// rejectClaimTemplates records claim templates on a non-StatefulSet.
func (w *Workload) rejectClaimTemplates(a *App) {
	if len(w.claimTemplates) > 0 {
		a.report(w.kind, w.name, []string{"ClaimTemplate applies only to a StatefulSet (use PersistentVolumeClaim and MountClaim)"})
	}
}

// rejectReplicas records Replicas on a Job or CronJob.
func (w *Workload) rejectReplicas(a *App) {
	if w.replicas != nil {
		a.report(w.kind, w.name, []string{"Replicas does not apply to a " + w.kind})
	}
}
