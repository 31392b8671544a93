package readiness

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Diagnose explains why pods are not ready, one line per problem, naming
// the pod and container: a waiting container's reason and message
// (ImagePullBackOff, ErrImagePull, CreateContainerConfigError,
// CrashLoopBackOff with the last exit code), a container that exited with
// an error, a pod the scheduler cannot place, a Failed pod. Ready and
// Succeeded pods give no line; a pod not ready for no visible reason gives
// one saying so. Lines are ordered by pod name, then container order. It
// reads no events and does no I/O.
func Diagnose(pods []corev1.Pod) []string {
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	var lines []string
	for i := range sorted {
		lines = append(lines, diagnosePod(&sorted[i])...)
	}
	return lines
}

// diagnosePod explains one pod.
func diagnosePod(p *corev1.Pod) []string {
	switch {
	case p.Status.Phase == corev1.PodSucceeded || podReady(p):
		return nil
	case p.Status.Phase == corev1.PodFailed:
		return []string{podLine(p, "Failed", p.Status.Reason, p.Status.Message)}
	}
	if c := podCondition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
		return []string{podLine(p, c.Reason, schedulerMessage(c.Message))}
	}
	lines := containerLines(p, p.Status.InitContainerStatuses)
	lines = append(lines, containerLines(p, p.Status.ContainerStatuses)...)
	if len(lines) == 0 {
		lines = []string{podLine(p, string(p.Status.Phase), "not ready")}
	}
	return lines
}

// containerLines explains each container that is waiting or has exited
// with an error.
func containerLines(p *corev1.Pod, statuses []corev1.ContainerStatus) []string {
	var lines []string
	for _, cs := range statuses {
		if line, ok := containerProblem(cs); ok {
			lines = append(lines, fmt.Sprintf("pod %s container %s: %s", p.Name, cs.Name, line))
		}
	}
	return lines
}

// containerProblem explains one container's state, if it is a problem.
func containerProblem(cs corev1.ContainerStatus) (string, bool) {
	if w := cs.State.Waiting; w != nil {
		return join(w.Reason, w.Message, lastExit(cs.LastTerminationState.Terminated)), true
	}
	if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
		return join(orDefault(t.Reason, "Terminated"), exitDetail(t)), true
	}
	if cs.State.Running != nil && !cs.Ready {
		return "running but not ready", true
	}
	return "", false
}

// lastExit describes the previous termination of a restarting container.
func lastExit(t *corev1.ContainerStateTerminated) string {
	if t == nil {
		return ""
	}
	return "last " + exitDetail(t)
}

// exitDetail gives a termination's exit code, reason and message.
func exitDetail(t *corev1.ContainerStateTerminated) string {
	s := fmt.Sprintf("exit code %d", t.ExitCode)
	if t.Reason != "" {
		s += " (" + t.Reason + ")"
	}
	if msg := strings.TrimSpace(t.Message); msg != "" {
		s += ": " + msg
	}
	return s
}

// strayNotFound is what the scheduler (v1.36) appends to its message when
// a pod fails before its dynamic-resources plugin ran: that plugin's
// PostFilter finds no state of its own and reports the lookup's error,
// "not found", as if it were a reason ("0/2 nodes are available: pod has
// unbound immediate PersistentVolumeClaims. not found").
const strayNotFound = ". not found"

// schedulerMessage is an unschedulable pod's message without the stray
// strayNotFound, which says nothing about the pod.
func schedulerMessage(msg string) string {
	if trimmed, ok := strings.CutSuffix(strings.TrimSpace(msg), strayNotFound); ok {
		return trimmed + "."
	}
	return msg
}

// podLine formats a pod-level problem: "pod NAME: part: part".
func podLine(p *corev1.Pod, parts ...string) string {
	return "pod " + p.Name + ": " + join(parts...)
}

// join joins the non-empty parts with ": ".
func join(parts ...string) string {
	var kept []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, ": ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// podReady reports whether the pod's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	c := podCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// podCondition returns the pod's condition of type typ, or nil.
func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
