package readiness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment whose image cannot be pulled times out with the pull error
// of its pod, named with pod and container, in the error.
func TestWaitImagePullBackOffIsDiagnosed(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	fakeKubelet(t, sb, ns, "web", imagePullBackOff)
	target := createDeployment(t, sb, ns, deployment("web", 1, onAbsentNode))
	_, err := readiness.Wait(testContext(t), sb.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 8 * time.Second})
	if !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait(Deployment with an unpullable image) = %v, want ErrTimeout", err)
	}
	t.Logf("Wait() error:\n%v", err)
	for _, want := range []string{
		"Deployment/" + ns + "/web in-progress",
		`container web: ImagePullBackOff: Back-off pulling image "example.invalid/web:1"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Wait() error =\n%v\nwant it to contain %q", err, want)
		}
	}
}
