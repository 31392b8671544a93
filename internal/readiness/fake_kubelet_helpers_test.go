package readiness_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// absentNode is a node name no node has: kwok manages only existing nodes
// and the scheduler skips pods already bound, so a pod bound to it gets its
// status from fakeKubelet alone. (The pod GC deletes such pods after about
// 40s, longer than these tests.)
const absentNode = "piceli-no-kubelet"

// onAbsentNode binds a pod spec to absentNode.
func onAbsentNode(spec *corev1.PodSpec) { spec.NodeName = absentNode }

// fakeKubelet stands in for the kubelet of absentNode until the test ends:
// every pod in ns labelled app=app that has no container status yet gets
// the status status returns, as a kubelet would report it.
func fakeKubelet(t *testing.T, sb *sandboxtest.Sandbox, ns, app string, status func(*corev1.Pod) corev1.PodStatus) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			reportStatuses(ctx, sb, ns, app, status)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// reportStatuses writes the status of the pods that have none; errors are
// retried on the next tick.
func reportStatuses(ctx context.Context, sb *sandboxtest.Sandbox, ns, app string, status func(*corev1.Pod) corev1.PodStatus) {
	pods := sb.Clientset.CoreV1().Pods(ns)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return
	}
	for i := range list.Items {
		p := &list.Items[i]
		if len(p.Status.ContainerStatuses) > 0 || p.Spec.NodeName != absentNode {
			continue
		}
		p.Status = status(p)
		_, _ = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	}
}

// imagePullBackOff is the status a kubelet reports for a pod whose image
// cannot be pulled.
func imagePullBackOff(p *corev1.Pod) corev1.PodStatus {
	c := p.Spec.Containers[0]
	return corev1.PodStatus{
		Phase: corev1.PodPending,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + c.Image + `"`,
			}},
		}},
	}
}

// crashLoop is the status a kubelet reports for a container that keeps
// exiting with code 1.
func crashLoop(p *corev1.Pod) corev1.PodStatus {
	c := p.Spec.Containers[0]
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, RestartCount: 3,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=" + c.Name + " pod=" + p.Name,
			}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", Message: "listen: address already in use",
			}},
		}},
	}
}
