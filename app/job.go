package app

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jobOptions are what the Job options set, for a Job or a CronJob's jobs.
type jobOptions struct {
	backoffLimit, completions, parallelism, ttl *int32
	activeDeadline                              *int64
}

// cronOptions are what the CronJob options set.
type cronOptions struct {
	concurrency                 *batchv1.ConcurrencyPolicy
	successHistory, failHistory *int32
	timeZone                    *string
	jobLabels                   map[string]string
	jobLabelsSet                bool
}

// jobOption adapts a function that sets a Job option, checking it is used
// on the pod of a Job or CronJob.
func jobOption(name string, f func(*Workload, *jobOptions)) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption(name) && w.only(name, "Job", "CronJob") {
			f(w, &w.job)
		}
	})
}

// cronOption is jobOption for the options of a CronJob only.
func cronOption(name string, f func(*Workload)) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption(name) && w.only(name, "CronJob") {
			f(w)
		}
	})
}

// nonNegative returns a pointer to n, recording a negative n.
func nonNegative[T int32 | int64](w *Workload, field string, n T) *T {
	if n < 0 {
		w.fail("%s %d must not be negative", field, n)
	}
	return &n
}

// BackoffLimit sets how many times a Job (or a CronJob's jobs) retries.
func BackoffLimit(n int32) WorkloadOption {
	return jobOption("BackoffLimit", func(w *Workload, j *jobOptions) { j.backoffLimit = nonNegative(w, "backoff limit", n) })
}

// Completions sets how many pods of a Job must succeed.
func Completions(n int32) WorkloadOption {
	return jobOption("Completions", func(w *Workload, j *jobOptions) { j.completions = nonNegative(w, "completions", n) })
}

// Parallelism sets how many pods of a Job run at once.
func Parallelism(n int32) WorkloadOption {
	return jobOption("Parallelism", func(w *Workload, j *jobOptions) { j.parallelism = nonNegative(w, "parallelism", n) })
}

// TTLAfterFinished deletes a finished Job (and its pods) seconds after it
// ends; 0 deletes it at once.
func TTLAfterFinished(seconds int32) WorkloadOption {
	return jobOption("TTLAfterFinished", func(w *Workload, j *jobOptions) { j.ttl = nonNegative(w, "ttl after finished", seconds) })
}

// ActiveDeadline fails a Job still running seconds after it started.
func ActiveDeadline(seconds int64) WorkloadOption {
	return jobOption("ActiveDeadline", func(w *Workload, j *jobOptions) { j.activeDeadline = nonNegative(w, "active deadline", seconds) })
}

// Concurrency sets whether a CronJob may start a job while the last one
// runs: Forbid (the builder's default), Replace or Allow; "" leaves the
// field out, which Kubernetes reads as Allow.
func Concurrency(p batchv1.ConcurrencyPolicy) WorkloadOption {
	return cronOption("Concurrency", func(w *Workload) {
		switch p {
		case "", batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
			w.cron.concurrency = &p
		default:
			w.fail("concurrency %q is not Allow, Forbid or Replace", p)
		}
	})
}

// JobHistory keeps the last successful and failed jobs of a CronJob
// (Kubernetes' defaults are 3 and 1).
func JobHistory(successful, failed int32) WorkloadOption {
	return cronOption("JobHistory", func(w *Workload) {
		w.cron.successHistory = nonNegative(w, "successful job history", successful)
		w.cron.failHistory = nonNegative(w, "failed job history", failed)
	})
}

// TimeZone reads a CronJob's schedule in a time zone of the tz database
// ("Europe/Madrid") instead of the controller's.
func TimeZone(tz string) WorkloadOption {
	return cronOption("TimeZone", func(w *Workload) {
		if tz == "" {
			w.fail("time zone is empty")
			return
		}
		w.cron.timeZone = &tz
	})
}

// JobLabels gives the jobs a CronJob starts these labels instead of the
// CronJob's own; nil means none. The map is copied.
func JobLabels(labels map[string]string) WorkloadOption {
	return cronOption("JobLabels", func(w *Workload) {
		if w.validLabels("job labels", labels) {
			w.cron.jobLabels, w.cron.jobLabelsSet = maps.Clone(labels), true
		}
	})
}

// Job declares a Job: a component that runs its container to completion
// (pods restart on failure up to BackoffLimit). Piceli counts it ready when
// it completes. Image is required; the pod, container and Job options
// apply; its pods' restart policy is Never unless RestartPolicy says
// OnFailure.
func (a *App) Job(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("Job", name, opts)
	a.addWorkload(w, &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: a.objectMeta(w),
		Spec:       a.jobSpec(w),
	})
	return w
}

// CronJob declares a CronJob that starts a Job on schedule (cron syntax,
// such as "0 3 * * *"). Options are those of Job, and Concurrency,
// JobHistory, TimeZone and JobLabels; a new job is not started while the
// last one runs unless Concurrency says otherwise.
func (a *App) CronJob(name, schedule string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("CronJob", name, opts)
	if schedule == "" {
		a.report("CronJob", name, []string{"schedule is required"})
	}
	meta := a.objectMeta(w)
	jobLabels := maps.Clone(meta.Labels)
	if w.cron.jobLabelsSet {
		jobLabels = maps.Clone(w.cron.jobLabels)
	}
	concurrency := batchv1.ForbidConcurrent
	if w.cron.concurrency != nil {
		concurrency = *w.cron.concurrency
	}
	a.addWorkload(w, &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: meta,
		Spec: batchv1.CronJobSpec{
			Schedule:                   schedule,
			TimeZone:                   w.cron.timeZone,
			ConcurrencyPolicy:          concurrency,
			SuccessfulJobsHistoryLimit: w.cron.successHistory,
			FailedJobsHistoryLimit:     w.cron.failHistory,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: jobLabels},
				Spec:       a.jobSpec(w),
			},
		},
	})
	return w
}

// jobSpec returns the spec shared by Job and CronJob.
func (a *App) jobSpec(w *Workload) batchv1.JobSpec {
	if w.pod.RestartPolicy == corev1.RestartPolicyAlways {
		a.report(w.kind, w.name, []string{"restart policy Always is not allowed for a Job's pods (use OnFailure or Never)"})
	}
	return batchv1.JobSpec{
		BackoffLimit:            w.job.backoffLimit,
		Completions:             w.job.completions,
		Parallelism:             w.job.parallelism,
		TTLSecondsAfterFinished: w.job.ttl,
		ActiveDeadlineSeconds:   w.job.activeDeadline,
		Template:                a.podTemplate(w, corev1.RestartPolicyNever),
	}
}
