package sandbox_test

import (
	"context"
	"io"
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

// A Deployment of a locally built image becomes Available on the real node
// through its readiness probe; a request through port-forward gets the
// real process's answer, logs return what it printed, exec runs a command
// in it. The kubelet, not kwok, reported all of it.
func TestRealNodeRunsDeployment(t *testing.T) {
	r := upRealNode(t, openRealNode(t, 0))
	r.loadNodeApp(t)
	ns := r.api.Namespace(t)
	token := "token-" + randomWord(t)
	d := nodeAppDeployment("web", 1, token)
	if _, err := r.api.Clientset.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Deployment/%s/web: %v", ns, err)
	}
	start := time.Now()
	target := readiness.Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Kind: "Deployment", Namespace: ns, Name: "web"}
	if _, err := readiness.Wait(sandboxtest.Context(t, 2*time.Minute), r.api.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 90 * time.Second}); err != nil {
		t.Fatalf("Wait(Deployment/%s/web) = %v, want Available", ns, err)
	}
	t.Logf("Deployment Available %s after create", time.Since(start).Round(10*time.Millisecond))

	pod := podsOf(t, r.api, ns, "web")[0]
	if pod.Spec.NodeName != sandbox.RealNodeName || !statusWrittenBy(pod, "kubelet") || statusWrittenBy(pod, "kwok-controller") {
		t.Fatalf("Pod/%s/%s on %q, status managers %v; want %s, written by the kubelet only", ns, pod.Name, pod.Spec.NodeName,
			pod.ManagedFields, sandbox.RealNodeName)
	}
	assertNodeLoopback(t, r.api, sandbox.RealNodeName)

	local := forward(t, r.api, ns, pod.Name, 8080)
	body := httpGet(t, "http://"+local.String()+"/hello")
	if want := token + " from " + pod.Name + " pid "; !strings.HasPrefix(body, want) {
		t.Errorf("GET /hello through port-forward = %q, want it to start with %q", body, want)
	}

	logs := podLogs(t, r.api, ns, pod.Name)
	for _, want := range []string{"serving on :8080\n", "GET /hello\n"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs of Pod/%s/%s = %q, want them to contain %q", ns, pod.Name, logs, want)
		}
	}

	if got := execInPod(t, r.api, ns, pod.Name, "/nodeapp", "cat", "/etc/hostname"); strings.TrimSpace(got) != pod.Name {
		t.Errorf("exec cat /etc/hostname in Pod/%s/%s = %q, want the pod's name", ns, pod.Name, got)
	}
}

// podLogs reads the logs of the pod's first container through the API
// server and the kubelet.
func podLogs(t *testing.T, sb *sandboxtest.Sandbox, ns, pod string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stream, err := sb.Clientset.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{}).Stream(ctx)
	if err != nil {
		t.Fatalf("logs of Pod/%s/%s: %v", ns, pod, err)
	}
	defer stream.Close()
	b, err := io.ReadAll(stream)
	if err != nil {
		t.Fatalf("read logs of Pod/%s/%s: %v", ns, pod, err)
	}
	return string(b)
}
