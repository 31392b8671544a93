package readiness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment whose pods no node accepts times out with the scheduler's
// reason for each pod in the error.
func TestWaitUnschedulableDeploymentIsDiagnosed(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	target := createDeployment(t, sb, ns, deployment("web", 2, func(spec *corev1.PodSpec) {
		spec.NodeSelector = map[string]string{"piceli.dev/no-such-node": "true"}
	}))
	start := time.Now()
	report, err := readiness.Wait(testContext(t), sb.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 8 * time.Second})
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("Wait() took %s with an 8s timeout", elapsed)
	}
	var notReady *readiness.NotReadyError
	if !errors.As(err, &notReady) || !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait(unschedulable Deployment) = %v, want a *NotReadyError wrapping ErrTimeout", err)
	}
	t.Logf("Wait() error:\n%v", err)
	for _, want := range []string{"timed out after 8s", "Deployment/" + ns + "/web in-progress", "Unschedulable: 0/1 nodes are available"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Wait() error =\n%v\nwant it to contain %q", err, want)
		}
	}
	if got := report.Objects[0].Diagnosis; len(got) != 2 || !strings.HasPrefix(got[0], "pod web-") {
		t.Errorf("Wait() diagnosis = %q, want one Unschedulable line per pod", got)
	}
}
