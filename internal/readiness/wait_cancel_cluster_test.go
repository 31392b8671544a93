package readiness_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// When the caller's context ends first, Wait returns its cause, not
// ErrTimeout, still naming the objects not ready.
func TestWaitStopsWithCallersContext(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	target := createDeployment(t, sb, ns, deployment("web", 1, func(spec *corev1.PodSpec) {
		spec.NodeSelector = map[string]string{"piceli.dev/no-such-node": "true"}
	}))
	ctx, cancel := context.WithTimeout(testContext(t), time.Second)
	defer cancel()
	_, err := readiness.Wait(ctx, sb.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 100 * time.Millisecond, Timeout: time.Minute})
	var notReady *readiness.NotReadyError
	if !errors.As(err, &notReady) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait() under a 1s context = %v, want a *NotReadyError wrapping context.DeadlineExceeded", err)
	}
	if len(notReady.Objects) != 1 || notReady.Objects[0].Ref.String() != "Deployment/"+ns+"/web" {
		t.Errorf("Wait() not-ready objects = %+v, want Deployment/%s/web", notReady.Objects, ns)
	}
}
