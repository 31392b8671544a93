package sandbox_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A pod's log tail is read through the API server from a CRI-format file
// that kwok serves.
func TestLogsTailThroughAPIServer(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	file := sandboxtest.WriteCRILog(t, "starting", "listening on :8080", "request 1", "request 2")
	pod := sb.RunPod(t, ns, "app")
	sb.PodLogsFrom(t, ns, pod.Name, file)

	tail := int64(2)
	var got string
	sandboxtest.Eventually(t, 30*time.Second, "logs of Pod/"+ns+"/app", func(ctx context.Context) (bool, error) {
		raw, err := sb.Clientset.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
		got = string(raw)
		return err == nil && got != "", err
	})
	if want := "request 1\nrequest 2\n"; got != want {
		t.Fatalf("logs --tail=2 of Pod/%s/app = %q, want %q", ns, got, want)
	}
}
