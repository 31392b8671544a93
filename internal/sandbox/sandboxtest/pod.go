package sandboxtest

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunPod creates a one-container pod (kwok fakes it; the image is never
// pulled) and waits until it is Running on a node.
func (s *Sandbox) RunPod(t testing.TB, namespace, name string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: "example.invalid/fake:1",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
		}}},
	}
	pods := s.Clientset.CoreV1().Pods(namespace)
	if _, err := pods.Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Pod/%s/%s: %v", namespace, name, err)
	}
	var got *corev1.Pod
	Eventually(t, time.Minute, "Pod/"+namespace+"/"+name+" Running", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		got = p
		return err == nil && p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "", err
	})
	return got
}

// Eventually polls cond every 250ms until it returns true, and fails the
// test when timeout passes first; the last error is reported.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	ctx := Context(t, timeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		ok, err := cond(ctx)
		if ok {
			return
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("wait for %s: %v (last error: %v)", what, context.Cause(ctx), lastErr)
		case <-tick.C:
		}
	}
}
