package readiness

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// podStatus: Succeeded is current, Failed is failed, Ready is current, a
// crash-looping container is failed; anything else is in progress.
func podStatus(obj *unstructured.Unstructured) Result {
	phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
	switch {
	case phase == "Succeeded":
		return current("pod succeeded")
	case phase == "Failed":
		return failed(podFailure(obj))
	case isTrue(obj, "Ready"):
		return current("pod is ready")
	}
	if names := crashLooping(obj); len(names) > 0 {
		return failed("containers in CrashLoopBackOff: " + strings.Join(names, ", "))
	}
	if c, ok := conditionOf(obj, "PodScheduled"); ok && c.Status == "False" {
		return inProgress("pod not scheduled: " + c.explain())
	}
	if phase == "" {
		return inProgress("pod phase not yet reported")
	}
	return inProgress(fmt.Sprintf("pod %s, not ready", phase))
}

// podFailure explains a Failed pod from its status reason and message.
func podFailure(obj *unstructured.Unstructured) string {
	reason, _, _ := unstructured.NestedString(obj.Object, "status", "reason")
	msg, _, _ := unstructured.NestedString(obj.Object, "status", "message")
	c := condition{Reason: reason, Message: msg}
	if c.explain() == "" {
		return "pod failed"
	}
	return "pod failed: " + c.explain()
}

// crashLooping names the containers waiting in CrashLoopBackOff, and those
// that failed again after a restart: a kubelet (v1.36 seen) may keep such a
// container Terminated through its whole back-off and never report
// CrashLoopBackOff.
func crashLooping(obj *unstructured.Unstructured) []string {
	var names []string
	for _, field := range []string{"initContainerStatuses", "containerStatuses"} {
		list, _, _ := unstructured.NestedSlice(obj.Object, "status", field)
		for _, item := range list {
			m, _ := item.(map[string]any)
			reason, _, _ := unstructured.NestedString(m, "state", "waiting", "reason")
			exit, _, _ := unstructured.NestedInt64(m, "state", "terminated", "exitCode")
			restarts, _, _ := unstructured.NestedInt64(m, "restartCount")
			if reason == "CrashLoopBackOff" || (exit != 0 && restarts > 0) {
				names = append(names, str(m, "name"))
			}
		}
	}
	return names
}
