package sandboxtest

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// LocalForward port-forwards 127.0.0.1 to port of the pod namespace/name
// through the API server and the kubelet (of the real node: kwok's
// forwards go where ForwardPod says), and returns "127.0.0.1:PORT"; the
// forward ends with the test.
func (s *Sandbox) LocalForward(t testing.TB, namespace, name string, port int) string {
	t.Helper()
	transport, upgrader, err := spdy.RoundTripperFor(s.RESTConfig)
	if err != nil {
		t.Fatalf("spdy round tripper: %v", err)
	}
	url := s.Clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("port-forward Pod/%s/%s: %v", namespace, name, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	t.Cleanup(func() { close(stop); <-errc })
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("port-forward Pod/%s/%s: %v", namespace, name, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("port-forward Pod/%s/%s: not ready after 30s", namespace, name)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		t.Fatalf("port-forward Pod/%s/%s ports = %v, %v", namespace, name, ports, err)
	}
	return fmt.Sprintf("127.0.0.1:%d", ports[0].Local)
}
