package sandboxtest

import (
	"net/netip"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/sandbox"
)

// ForwardPod makes kwok send port-forward connections for port of pod to
// target, which must be on loopback (the test fails otherwise).
func (s *Sandbox) ForwardPod(t testing.TB, namespace, pod string, port int32, target netip.AddrPort) {
	t.Helper()
	if !target.Addr().IsLoopback() {
		t.Fatalf("port-forward target %s is not loopback; the sandbox only sends traffic to 127.0.0.1/::1", target)
	}
	s.create(t, sandbox.PortForwardResource, sandbox.PortForward(namespace, pod, port, target))
}

// PodLogsFrom makes kwok serve the logs of every container of pod from file,
// a CRI-format log (see WriteCRILog).
func (s *Sandbox) PodLogsFrom(t testing.TB, namespace, pod, file string) {
	t.Helper()
	s.create(t, sandbox.LogsResource, sandbox.PodLogs(namespace, pod, file))
}

func (s *Sandbox) create(t testing.TB, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
	t.Helper()
	_, err := s.Dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Create(t.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s/%s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
}
