package sandbox_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A port-forward through the API server and kwok reaches an HTTP server on
// loopback; the node it goes through has only loopback addresses.
func TestPortForwardReachesLoopbackServer(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	target := sandboxtest.LoopbackHTTP(t)
	pod := sb.RunPod(t, ns, "web")
	assertNodeLoopback(t, sb, pod.Spec.NodeName)
	sb.ForwardPod(t, ns, pod.Name, 8080, target.Addr)

	local := forward(t, sb, ns, pod.Name, 8080)
	body := httpGet(t, "http://"+local.String()+"/")
	if body != target.Token {
		t.Fatalf("GET through port-forward = %q, want the loopback server's token %q", body, target.Token)
	}
}

// assertNodeLoopback fails unless every address of the node is a loopback IP.
func assertNodeLoopback(t *testing.T, sb *sandboxtest.Sandbox, name string) {
	t.Helper()
	node, err := sb.Clientset.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Node/%s: %v", name, err)
	}
	if bad := nonLoopback(node); len(bad) > 0 || len(node.Status.Addresses) == 0 {
		t.Fatalf("Node/%s addresses %v: want only loopback IPs, refusing to forward", name, node.Status.Addresses)
	}
}

func nonLoopback(node *corev1.Node) []string {
	var bad []string
	for _, a := range node.Status.Addresses {
		ip, err := netip.ParseAddr(a.Address)
		if err != nil || !ip.IsLoopback() {
			bad = append(bad, string(a.Type)+"="+a.Address)
		}
	}
	return bad
}

// forward opens a port-forward to pod's port with client-go's SPDY dialer
// and returns the local 127.0.0.1 address; it stops when the test ends.
func forward(t *testing.T, sb *sandboxtest.Sandbox, ns, pod string, port int) netip.AddrPort {
	t.Helper()
	transport, upgrader, err := spdy.RoundTripperFor(sb.RESTConfig)
	if err != nil {
		t.Fatalf("spdy round tripper: %v", err)
	}
	url := sb.Clientset.CoreV1().RESTClient().Post().Resource("pods").
		Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"},
		[]string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("port-forward Pod/%s/%s: %v", ns, pod, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	t.Cleanup(func() { close(stop); <-errc })
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("port-forward Pod/%s/%s: %v", ns, pod, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("port-forward Pod/%s/%s: not ready after 30s", ns, pod)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		t.Fatalf("port-forward ports = %v, %v", ports, err)
	}
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), ports[0].Local)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		Proxy: nil, DialContext: (&net.Dialer{}).DialContext,
	}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return string(b)
}
