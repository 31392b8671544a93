package readiness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment whose pods kwok reports in ImagePullBackOff (the sandbox's
// simulation annotation, no status written by the test) times out with the
// pull error of its pod in the diagnosis.
func TestWaitKwokImagePullBackOffIsDiagnosed(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	d := deployment("web", 1, nil)
	d.Spec.Template.Annotations = sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)
	target := createDeployment(t, sb, ns, d)
	_, err := readiness.Wait(testContext(t), sb.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 10 * time.Second})
	if !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait(Deployment kwok keeps in ImagePullBackOff) = %v, want ErrTimeout", err)
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
	assertStatusWrittenByKwok(t, sb, ns, "app=web")
}

// assertStatusWrittenByKwok fails the test unless every pod matching
// selector was scheduled to a kwok node and its status came from kwok.
func assertStatusWrittenByKwok(t *testing.T, sb *sandboxtest.Sandbox, ns, selector string) {
	t.Helper()
	pods, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatalf("list pods %s in %s: %v", selector, ns, err)
	}
	if len(pods.Items) == 0 {
		t.Fatalf("no pods %s in %s", selector, ns)
	}
	for _, p := range pods.Items {
		if !statusManagedBy(p, "kwok-controller") {
			t.Errorf("Pod/%s/%s status was not written by kwok (managers: %v)", ns, p.Name, managers(p))
		}
	}
}

// statusManagedBy reports whether manager wrote the status subresource.
func statusManagedBy(p corev1.Pod, manager string) bool {
	for _, f := range p.ManagedFields {
		if f.Manager == manager && f.Subresource == "status" {
			return true
		}
	}
	return false
}

func managers(p corev1.Pod) []string {
	var out []string
	for _, f := range p.ManagedFields {
		out = append(out, f.Manager+"/"+f.Subresource)
	}
	return out
}
