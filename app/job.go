package app

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Job declares a Job: a component that runs its container to completion
// (pods restart on failure up to BackoffLimit). Piceli counts it ready when
// it completes. Image is required; Replicas and ClaimTemplate do not apply.
func (a *App) Job(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("Job", name, opts)
	w.rejectReplicas(a)
	w.rejectClaimTemplates(a)
	a.addWorkload(w, &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(name, a.labels(name), w.annotations),
		Spec:       a.jobSpec(w),
	})
	return w
}

// CronJob declares a CronJob that starts a Job on schedule (cron syntax,
// such as "0 3 * * *"). Options are those of Job.
func (a *App) CronJob(name, schedule string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("CronJob", name, opts)
	w.rejectReplicas(a)
	w.rejectClaimTemplates(a)
	if schedule == "" {
		a.report("CronJob", name, []string{"schedule is required"})
	}
	a.addWorkload(w, &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: meta(name, a.labels(name), w.annotations),
		Spec: batchv1.CronJobSpec{
			Schedule:          schedule,
			ConcurrencyPolicy: batchv1.ForbidConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: meta("", a.labels(name), nil),
				Spec:       a.jobSpec(w),
			},
		},
	})
	return w
}

// jobSpec returns the spec shared by Job and CronJob.
func (a *App) jobSpec(w *Workload) batchv1.JobSpec {
	return batchv1.JobSpec{
		BackoffLimit: w.backoffLimit,
		Template:     a.podTemplate(w, corev1.RestartPolicyNever),
	}
}
