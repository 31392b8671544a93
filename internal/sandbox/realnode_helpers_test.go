package sandbox_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// realNodeSandbox is a sandbox with a real node, started by a test.
type realNodeSandbox struct {
	*sandbox.Sandbox
	info sandbox.Info
	node sandbox.RealNodeInfo
	api  *sandboxtest.Sandbox
}

// openRealNode opens a sandbox with a real node and fakeNodes fake ones
// (see sandboxtest.OpenRealNode).
func openRealNode(t *testing.T, fakeNodes int) *sandbox.Sandbox {
	t.Helper()
	return sandboxtest.OpenRealNode(t, fakeNodes)
}

// upRealNode starts sb, which must have a real node, and connects to it.
func upRealNode(t *testing.T, sb *sandbox.Sandbox) *realNodeSandbox {
	t.Helper()
	start := time.Now()
	info := up(t, sb)
	t.Logf("sandbox with real node up (node Ready) in %s", time.Since(start).Round(10*time.Millisecond))
	node, ok, err := sb.RealNode()
	if err != nil || !ok || info.RealNode != sandbox.RealNodeName {
		t.Fatalf("RealNode() = %+v, %t, %v; Info.RealNode %q; want %s", node, ok, err, info.RealNode, sandbox.RealNodeName)
	}
	api, err := sandboxtest.Connect(info.Kubeconfig, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	return &realNodeSandbox{Sandbox: sb, info: info, node: node, api: api}
}

// loadNodeApp builds the nodeapp image and loads it into the real node.
func (r *realNodeSandbox) loadNodeApp(t *testing.T) {
	t.Helper()
	names, err := r.Load(t.Context(), sandboxtest.NodeAppImage(t))
	if err != nil || len(names) != 1 || names[0] != sandboxtest.NodeAppRef {
		t.Fatalf("Load(nodeapp image) = %v, %v; want [%s]", names, err, sandboxtest.NodeAppRef)
	}
}

// nodeAppDeployment is a Deployment of replicas nodeapp pods serving HTTP on
// 8080, Ready once /healthz answers through the kubelet's probe. token is
// what they answer with.
func nodeAppDeployment(name string, replicas int32, token string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: sandboxtest.NodeAppRef, ImagePullPolicy: corev1.PullIfNotPresent,
					Args:  []string{"serve", ":8080"},
					Env:   []corev1.EnvVar{{Name: "NODEAPP_TOKEN", Value: token}},
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
					ReadinessProbe: &corev1.Probe{
						ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
						PeriodSeconds: 1,
					},
				}}},
			},
		},
	}
}

// podsOf lists the pods matching app=name in ns, failing on none.
func podsOf(t *testing.T, sb *sandboxtest.Sandbox, ns, name string) []corev1.Pod {
	t.Helper()
	pods, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("list pods app=%s in %s = %d, %v; want some", name, ns, len(pods.Items), err)
	}
	return pods.Items
}

// execInPod runs command in the pod's first container through the API server
// and the kubelet (websocket, falling back to SPDY as kubectl does) and
// returns its stdout.
func execInPod(t *testing.T, sb *sandboxtest.Sandbox, ns, pod string, command ...string) string {
	t.Helper()
	req := sb.Clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: command, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ws, err := remotecommand.NewWebSocketExecutor(sb.RESTConfig, http.MethodGet, req.URL().String())
	if err != nil {
		t.Fatal(err)
	}
	spdy, err := remotecommand.NewSPDYExecutor(sb.RESTConfig, http.MethodPost, req.URL())
	if err != nil {
		t.Fatal(err)
	}
	executor, err := remotecommand.NewFallbackExecutor(ws, spdy, httpstream.IsUpgradeFailure)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	ctx := sandboxtest.Context(t, 30*time.Second)
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatalf("exec %s in Pod/%s/%s: %v\nstderr: %s", strings.Join(command, " "), ns, pod, err, stderr.String())
	}
	return stdout.String()
}

// statusWrittenBy reports whether manager wrote the pod's status.
func statusWrittenBy(p corev1.Pod, manager string) bool {
	for _, f := range p.ManagedFields {
		if f.Manager == manager && f.Subresource == "status" {
			return true
		}
	}
	return false
}

// randomWord is 12 random hex digits, so a test's expectations come from the
// test, not from a fixed string a stand-in could return.
func randomWord(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
