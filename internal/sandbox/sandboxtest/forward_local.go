package sandboxtest

import (
	"testing"

	"github.com/pynenc/piceli/internal/access"
)

// LocalForward port-forwards 127.0.0.1 to port of the pod namespace/name,
// once it is ready, through the API server and the kubelet (of the real
// node: kwok's forwards go where ForwardPod says), and returns
// "127.0.0.1:PORT"; the forward ends with the test.
func (s *Sandbox) LocalForward(t testing.TB, namespace, name string, port int) string {
	t.Helper()
	local, stop, err := access.Forward(t.Context(), s.RESTConfig, s.Clientset, namespace,
		access.Target{Kind: access.KindPod, Name: name, Port: int32(port)}, access.Options{})
	if err != nil {
		t.Fatalf("port-forward Pod/%s/%s: %v", namespace, name, err)
	}
	t.Cleanup(stop)
	return local.String()
}
