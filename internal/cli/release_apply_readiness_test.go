package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment whose image cannot be pulled fails the run after the
// readiness timeout with a diagnosis naming the pod, the container and the
// reason. With on_failure = "stop" the run ends failed and resumable; with
// "compensate" the objects it created are deleted again.
func TestApplyReadinessFailureIsDiagnosed(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	tests := []struct {
		policy string
		status journal.RunStatus
		undone bool
	}{
		{policy: "stop", status: journal.StatusFailed},
		{policy: "compensate", status: journal.StatusCompensated, undone: true},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "on_failure = \""+tt.policy+"\"\nready_timeout = \"8s\"\n", map[string]string{
				"cm.yaml":     configMapYAML("settings", "mode", "fast"),
				"deploy.yaml": deploymentYAML("web", 1, "      nodeName: "+absentNode+"\n"),
			})
			fakeKubelet(t, sb, r.ns, "web", imagePullBackOff)
			p := r.plan(t)

			res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			if res.code != ExitFailed {
				t.Fatalf("apply: exit %d, want %d\n%s", res.code, ExitFailed, res.stderr)
			}
			for _, want := range []string{"timed out after 8s", "Deployment/" + r.ns + "/web", "pod web-", `container web: ImagePullBackOff: Back-off pulling image "example.invalid/web:1"`} {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("apply stderr does not contain %q:\n%s", want, res.stderr)
				}
			}
			id, st := r.latestRun(t)
			if st.Status != tt.status {
				t.Errorf("journal of run %s says %s, want %s", id, st.Status, tt.status)
			}
			for i, s := range p.Steps {
				if s.Action != plan.Create {
					continue
				}
				gone := r.gone(t, s)
				if gone != tt.undone {
					t.Errorf("after the failed run, %s gone = %t, want %t", s.Ref, gone, tt.undone)
				}
				if tt.undone && st.Steps[i].Status != journal.StepCompensated {
					t.Errorf("journal: step %d (%s) is %s, want compensated", i, s.Ref, st.Steps[i].Status)
				}
			}
			if tt.undone && !strings.Contains(res.stderr, "this run's changes were undone") {
				t.Errorf("apply stderr does not say the run was undone:\n%s", res.stderr)
			}
		})
	}
}

// absentNode is a node name no node has: kwok manages only existing nodes
// and the scheduler skips pods already bound, so a pod bound to it gets its
// status from fakeKubelet alone (see internal/readiness's tests).
const absentNode = "piceli-no-kubelet"

// fakeKubelet stands in for the kubelet of absentNode until the test ends:
// every pod in ns labelled app=app without container statuses gets the
// status that status returns.
func fakeKubelet(t *testing.T, sb *sandboxtest.Sandbox, ns, app string, status func(*corev1.Pod) corev1.PodStatus) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	pods := sb.Clientset.CoreV1().Pods(ns)
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			reportStatuses(ctx, pods, app, status)
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
func reportStatuses(ctx context.Context, pods typedcorev1.PodInterface, app string, status func(*corev1.Pod) corev1.PodStatus) {
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return
	}
	for i := range list.Items {
		p := &list.Items[i]
		if len(p.Status.ContainerStatuses) == 0 && p.Spec.NodeName == absentNode {
			p.Status = status(p)
			_, _ = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		}
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
