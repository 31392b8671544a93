package sandbox_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Piceli's readiness reports what the real kubelet says: a container that
// keeps exiting fails the wait as a crash loop with its exit code, and an
// image that is not on the node is named in the diagnosis, whether the pod
// may not pull (ErrImageNeverPull) or cannot (ImagePullBackOff).
func TestRealNodeFailuresAreDiagnosed(t *testing.T) {
	r := upRealNode(t, openRealNode(t, 0))
	r.loadNodeApp(t)
	ns := r.api.Namespace(t)
	code := 1 + rand.IntN(100)
	missing := "localhost/piceli-test/missing:" + randomWord(t)
	worker := nodeAppPod("worker", corev1.PullNever, sandboxtest.NodeAppRef, "exit", fmt.Sprint(code))
	// Without a readiness probe the kubelet may report the pod Ready in the
	// instant its container runs, and a wait that polls then is satisfied:
	// a probe that never passes keeps this test about the crash loop.
	worker.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		Exec: &corev1.ExecAction{Command: []string{"/nodeapp", "exit", "1"}}}, PeriodSeconds: 1}
	pods := []*corev1.Pod{
		worker,
		nodeAppPod("never", corev1.PullNever, missing),
		nodeAppPod("pull", corev1.PullIfNotPresent, missing+"-pull"),
	}
	var targets []readiness.Target
	for _, p := range pods {
		if _, err := r.api.Clientset.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Pod/%s/%s: %v", ns, p.Name, err)
		}
		targets = append(targets, readiness.Target{GVR: podsGVR, Kind: "Pod", Namespace: ns, Name: p.Name})
	}

	_, err := readiness.Wait(sandboxtest.Context(t, 2*time.Minute), r.api.Dynamic, targets[:1],
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 90 * time.Second})
	t.Logf("Wait(crash-looping Pod) error:\n%v", err)
	if !errors.Is(err, readiness.ErrFailed) {
		t.Fatalf("Wait(Pod/%s/worker exiting %d) = %v, want ErrFailed", ns, code, err)
	}
	for _, want := range []string{"Pod/" + ns + "/worker failed: containers in CrashLoopBackOff: main",
		fmt.Sprintf("exit code %d (Error)", code)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Wait() error =\n%v\nwant it to contain %q", err, want)
		}
	}

	_, err = readiness.Wait(sandboxtest.Context(t, 2*time.Minute), r.api.Dynamic, targets[1:],
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 15 * time.Second})
	t.Logf("Wait(Pods with a missing image) error:\n%v", err)
	if !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait(Pods with a missing image) = %v, want ErrTimeout", err)
	}
	never := fmt.Sprintf("ErrImageNeverPull: Container image %q is not present with pull policy of Never", missing)
	if got := diagnosisOf(err, "pod never container main: "); got != never {
		t.Errorf("diagnosis of Pod/%s/never = %q, want %q", ns, got, never)
	}
	// The kubelet alternates between ImagePullBackOff and ErrImagePull
	// while it retries the pull (which fails at once: localhost serves no
	// registry); either names the image.
	pull := diagnosisOf(err, "pod pull container main: ")
	if !(strings.HasPrefix(pull, "ImagePullBackOff: ") || strings.HasPrefix(pull, "ErrImagePull: ")) ||
		!strings.Contains(pull, fmt.Sprintf("%q", missing+"-pull")) {
		t.Errorf("diagnosis of Pod/%s/pull = %q; want ImagePullBackOff or ErrImagePull naming %q", ns, pull, missing+"-pull")
	}
	for _, p := range pods {
		got, err := r.api.Clientset.CoreV1().Pods(ns).Get(t.Context(), p.Name, metav1.GetOptions{})
		if err != nil || got.Spec.NodeName != sandbox.RealNodeName || !statusWrittenBy(*got, "kubelet") {
			t.Errorf("Pod/%s/%s: %v; want it on %s, its status written by the kubelet", ns, p.Name, err, sandbox.RealNodeName)
		}
	}
}

// nodeAppPod is a pod of one container, main, running image with args.
func nodeAppPod(name string, pull corev1.PullPolicy, image string, args ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: image, ImagePullPolicy: pull, Args: args,
		}}},
	}
}

// diagnosisOf returns the rest of the first line of err that, trimmed,
// starts with prefix.
func diagnosisOf(err error, prefix string) string {
	for _, line := range strings.Split(err.Error(), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return rest
		}
	}
	return ""
}
