package readiness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pod(name string, phase corev1.PodPhase, conditions []corev1.PodCondition, containers ...corev1.ContainerStatus) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Status:     corev1.PodStatus{Phase: phase, Conditions: conditions, ContainerStatuses: containers},
	}
}

func waiting(name, reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

var (
	ready       = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	notReady    = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	unscheduled = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."}}
)

func TestDiagnose(t *testing.T) {
	crashLoop := waiting("web", "CrashLoopBackOff", "back-off 10s restarting failed container=web pod=web-7d9f-abc")
	crashLoop.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", Message: "config file missing\n"}
	oomKilled := corev1.ContainerStatus{Name: "web", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}
	probeFailing := corev1.ContainerStatus{Name: "web", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	initWaiting := pod("web-7d9f-init", corev1.PodPending, notReady)
	initWaiting.Status.InitContainerStatuses = []corev1.ContainerStatus{waiting("migrate", "ErrImagePull", `pull "db:9" denied`)}
	failedPod := pod("batch-x", corev1.PodFailed, nil)
	failedPod.Status.Reason, failedPod.Status.Message = "Evicted", "The node was low on resource: memory."

	tests := map[string]struct {
		pods []corev1.Pod
		want []string
	}{
		"ready and succeeded pods need no explanation": {
			[]corev1.Pod{pod("a", corev1.PodRunning, ready), pod("b", corev1.PodSucceeded, nil)}, nil},
		"an image that cannot be pulled names pod, container, reason and message": {
			[]corev1.Pod{pod("web-7d9f-abc", corev1.PodPending, notReady, waiting("web", "ImagePullBackOff", `Back-off pulling image "x"`))},
			[]string{`pod web-7d9f-abc container web: ImagePullBackOff: Back-off pulling image "x"`}},
		"a crash loop gives the last exit code and message": {
			[]corev1.Pod{pod("web-7d9f-abc", corev1.PodRunning, notReady, crashLoop)},
			[]string{"pod web-7d9f-abc container web: CrashLoopBackOff: back-off 10s restarting failed container=web pod=web-7d9f-abc: last exit code 2 (Error): config file missing"}},
		"a missing config map or secret gives CreateContainerConfigError": {
			[]corev1.Pod{pod("web-1", corev1.PodPending, notReady, waiting("web", "CreateContainerConfigError", `secret "db" not found`))},
			[]string{`pod web-1 container web: CreateContainerConfigError: secret "db" not found`}},
		"an init container that cannot start is explained": {
			[]corev1.Pod{initWaiting},
			[]string{`pod web-7d9f-init container migrate: ErrImagePull: pull "db:9" denied`}},
		"a container killed with a non-zero exit code is explained": {
			[]corev1.Pod{pod("web-1", corev1.PodRunning, notReady, oomKilled)},
			[]string{"pod web-1 container web: OOMKilled: exit code 137 (OOMKilled)"}},
		"a running container that is not ready says so": {
			[]corev1.Pod{pod("web-1", corev1.PodRunning, notReady, probeFailing)},
			[]string{"pod web-1 container web: running but not ready"}},
		"a pod the scheduler cannot place gives the scheduler's message": {
			[]corev1.Pod{pod("web-1", corev1.PodPending, unscheduled)},
			[]string{"pod web-1: Unschedulable: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."}},
		"a pod waiting for its claims gives the scheduler's message without its stray not found": {
			[]corev1.Pod{pod("cassandra-0", corev1.PodPending, []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"}})},
			[]string{"pod cassandra-0: Unschedulable: 0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."}},
		"a failed pod gives its reason and message": {
			[]corev1.Pod{failedPod},
			[]string{"pod batch-x: Failed: Evicted: The node was low on resource: memory."}},
		"a pending pod with no status yet says it is not ready": {
			[]corev1.Pod{pod("web-1", corev1.PodPending, nil)},
			[]string{"pod web-1: Pending: not ready"}},
		"pods are explained in name order": {
			[]corev1.Pod{
				pod("web-b", corev1.PodPending, notReady, waiting("web", "ErrImagePull", "")),
				pod("web-a", corev1.PodPending, notReady, waiting("web", "ImagePullBackOff", "")),
			},
			[]string{"pod web-a container web: ImagePullBackOff", "pod web-b container web: ErrImagePull"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Diagnose(tt.pods)); diff != "" {
				t.Errorf("Diagnose() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
