package check

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/spec"
)

// Labels on the Jobs job checks create. They are not the release's own
// label: a check's Job is no object of the release, for plans or prune.
const (
	CheckOfLabel = "piceli.dev/check-of" // the release
	CheckLabel   = "piceli.dev/check"    // the check, as a label value
)

// Bounds of a job check beyond its timeout.
const (
	jobGrace     = 30 * time.Second // after activeDeadlineSeconds, for the Job controller to mark it failed
	jobTTL       = int32(3600)      // seconds a finished Job stays if this process dies before deleting it
	cleanupLimit = 10 * time.Second // for reading logs and deleting the Job after the attempt ended
	logTailLines = int64(200)
	logLimit     = int64(256 << 10)
)

// job runs the check's Job to completion and deletes it; the excerpt is
// the tail of its last pod's logs.
func (r *Runner) job(ctx context.Context, name string, c *spec.JobCheck, timeout time.Duration) (string, error) {
	j, err := r.jobFor(name, c, timeout)
	if err != nil {
		return "", err
	}
	jobs := r.Client.Clientset.BatchV1().Jobs(r.Namespace)
	created, err := jobs.Create(ctx, j, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("create the check's Job in %s: %w", r.Namespace, err)
	}
	ref := fmt.Sprintf("Job/%s/%s", r.Namespace, created.Name)
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupLimit)
	defer cancel()
	defer jobs.Delete(after, created.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	diag, werr := r.waitJob(ctx, created, ref)
	logs := r.jobLogs(after, created)
	if werr != nil && len(diag) > 0 {
		werr = fmt.Errorf("%w (%s)", werr, strings.Join(diag, "; "))
	}
	return logs, werr
}

// jobFor builds the Job a check runs: a copy of the composition's Job
// c.From, or one of c.Image. Either way it gives up after timeout
// (activeDeadlineSeconds), is removed an hour after it finished should
// nobody delete it, and carries the check's labels.
func (r *Runner) jobFor(name string, c *spec.JobCheck, timeout time.Duration) (*batchv1.Job, error) {
	j := &batchv1.Job{}
	if c.From != "" {
		src, ok := r.Jobs[c.From]
		if !ok {
			return nil, fmt.Errorf("the composition declares no Job %q in %s to run", c.From, r.Namespace)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(src.Object, j); err != nil {
			return nil, fmt.Errorf("read Job/%s/%s of the composition: %w", r.Namespace, c.From, err)
		}
		j.Spec.Selector, j.Spec.ManualSelector = nil, nil
	} else {
		j.Spec.BackoffLimit = ptr.To(int32(0))
		j.Spec.Template.Spec = corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
			Name: "check", Image: c.Image, Command: c.Command, Args: c.Args,
		}}}
	}
	slug := labelValue(name)
	j.ObjectMeta = metav1.ObjectMeta{
		GenerateName: prefix(r.Release + "-check-" + slug),
		Namespace:    r.Namespace,
		Labels:       map[string]string{CheckOfLabel: r.Release, CheckLabel: slug},
	}
	j.Spec.ActiveDeadlineSeconds = ptr.To(int64(max(timeout/time.Second, 1)))
	j.Spec.TTLSecondsAfterFinished = ptr.To(jobTTL)
	tpl := &j.Spec.Template.ObjectMeta
	tpl.Labels = merge(tpl.Labels, map[string]string{CheckOfLabel: r.Release, CheckLabel: slug})
	tpl.Annotations = merge(tpl.Annotations, c.Annotations)
	return j, nil
}

// waitJob polls the Job until it completes (nil), fails, or ctx ends. It
// returns the last diagnosis of its pods too: a Job that fails for a
// deadline has its pods deleted, and with them why they could not start.
func (r *Runner) waitJob(ctx context.Context, j *batchv1.Job, ref string) ([]string, error) {
	tick := time.NewTicker(r.interval())
	defer tick.Stop()
	last, diag := "not started", []string(nil)
	for {
		got, err := r.Client.Clientset.BatchV1().Jobs(j.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
		if err == nil {
			if done, err := jobDone(got, ref); done {
				return diag, err
			}
			last = fmt.Sprintf("%d active, %d succeeded, %d failed", got.Status.Active, got.Status.Succeeded, got.Status.Failed)
		}
		if pods, err := r.jobPods(ctx, j); err == nil {
			if lines := readiness.Diagnose(pods); len(lines) > 0 {
				diag = lines
			}
		}
		select {
		case <-ctx.Done():
			return diag, fmt.Errorf("%s did not finish (%s)", ref, last)
		case <-tick.C:
		}
	}
}

// jobPods lists the Job's pods, oldest first.
func (r *Runner) jobPods(ctx context.Context, j *batchv1.Job) ([]corev1.Pod, error) {
	sel := labels.SelectorFromSet(map[string]string{"batch.kubernetes.io/controller-uid": string(j.UID)}).String()
	list, err := r.Client.Clientset.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	items := slices.Clone(list.Items)
	slices.SortFunc(items, func(a, b corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	return items, nil
}

// jobDone reads a Job's end from its conditions.
func jobDone(j *batchv1.Job, ref string) (bool, error) {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, nil
		case batchv1.JobFailed:
			return true, fmt.Errorf("%s failed: %s", ref, strings.TrimSuffix(c.Reason+": "+c.Message, ": "))
		}
	}
	return false, nil
}

// jobLogs returns the tail of the logs of the Job's newest pod, each
// container's. A log that cannot be read says so in the excerpt.
func (r *Runner) jobLogs(ctx context.Context, j *batchv1.Job) string {
	pods, err := r.jobPods(ctx, j)
	if err != nil {
		return "list the Job's pods: " + err.Error()
	}
	if len(pods) == 0 {
		return "the Job has no pod left to read logs from"
	}
	newest := pods[len(pods)-1]
	out := newTail(MaxExcerpt)
	for _, c := range newest.Spec.Containers {
		fmt.Fprintf(out, "pod %s container %s:\n", newest.Name, c.Name)
		r.podLog(ctx, newest, c.Name, out)
	}
	return out.String()
}

// podLog copies the tail of one container's log into w.
func (r *Runner) podLog(ctx context.Context, pod corev1.Pod, container string, w io.Writer) {
	req := r.Client.Clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{
		Container: container, TailLines: ptr.To(logTailLines), LimitBytes: ptr.To(logLimit),
	})
	s, err := req.Stream(ctx)
	if err != nil {
		fmt.Fprintf(w, "(logs not readable: %v)\n", err)
		return
	}
	defer s.Close()
	io.Copy(w, s)
}

// labelValue turns a check name into a label value: lower case letters,
// digits and '-', at most 40 characters, never empty.
func labelValue(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		return "check"
	}
	return s
}

// prefix makes a generateName of at most 58 characters ending in '-'.
func prefix(s string) string {
	if len(s) > 57 {
		s = strings.TrimRight(s[:57], "-")
	}
	return s + "-"
}

func merge(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
