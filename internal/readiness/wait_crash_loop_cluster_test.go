package readiness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Pod in CrashLoopBackOff (kwok reports it, as a kubelet would for a
// container that keeps exiting 1) fails Wait before the timeout, with the
// container's last exit code in the error.
func TestWaitCrashLoopingPodFails(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Labels: map[string]string{"app": "worker"}, Annotations: sb.SimulateAnnotations(t, sandbox.SimulateCrashLoop)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "example.invalid/worker:1"}}},
	}
	if _, err := sb.Clientset.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Pod/%s/worker: %v", ns, err)
	}
	target := readiness.Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespace: ns, Name: "worker"}
	start := time.Now()
	_, err := readiness.Wait(testContext(t), sb.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 20 * time.Second})
	if !errors.Is(err, readiness.ErrFailed) {
		t.Fatalf("Wait(crash-looping Pod) = %v, want ErrFailed", err)
	}
	t.Logf("Wait() error:\n%v", err)
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Wait() took %s; a failed object should stop it at once", elapsed)
	}
	want := "pod worker container main: CrashLoopBackOff: back-off 40s restarting failed container=main pod=worker: last exit code 1 (Error)"
	if !strings.Contains(err.Error(), "Pod/"+ns+"/worker failed") || !strings.Contains(err.Error(), want) {
		t.Errorf("Wait() error =\n%v\nwant Pod/%s/worker failed and %q", err, ns, want)
	}
}
