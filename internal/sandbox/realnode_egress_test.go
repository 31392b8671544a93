package sandbox_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/egress"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// With a real node the egress proxy lets the API server reach the pods on
// the node's bridge (a pod's proxy subresource answers with the pod), and
// exec goes through it to the kubelet on loopback. (Addresses outside the
// pods' subnet: TestEgressAllowsLoopbackAndThePodsSubnetOnly.)
func TestRealNodeAPIServerReachesItsPodsThroughTheEgressProxy(t *testing.T) {
	sb := openRealNode(t, 0)
	r := upRealNode(t, sb)
	r.loadNodeApp(t)
	ns := runNodeApp(t, r, 1)
	pods, err := r.api.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("list pods = %d, %v; want 1", len(pods.Items), err)
	}
	pod := pods.Items[0]
	subnet := netip.MustParsePrefix(r.node.Subnet)
	if ip, err := netip.ParseAddr(pod.Status.PodIP); err != nil || !subnet.Contains(ip) {
		t.Fatalf("Pod/%s has IP %q; want one in the node's subnet %s", pod.Name, pod.Status.PodIP, subnet)
	}
	body, err := r.api.Clientset.CoreV1().Pods(ns).ProxyGet("http", pod.Name, "8080", "/", nil).DoRaw(t.Context())
	if err != nil || !strings.Contains(string(body), " from "+pod.Name+" pid ") {
		t.Fatalf("GET through Pod/%s's proxy subresource = %q, %v; want the pod's answer", pod.Name, body, err)
	}
	if got := execInPod(t, r.api, ns, pod.Name, "/nodeapp", "cat", "/etc/hostname"); strings.TrimSpace(got) != pod.Name {
		t.Errorf("exec in Pod/%s = %q; want its hostname", pod.Name, got)
	}
	// The proxy counts an allowed tunnel on disk in the background.
	var st egress.Stats
	sandboxtest.Eventually(t, 10*time.Second, "the egress proxy's count of allowed tunnels", func(context.Context) (bool, error) {
		got, ok, err := sb.EgressStats()
		st = got
		return ok && got.Allowed >= 2, err
	})
	t.Logf("egress proxy: %d allowed, %d refused", st.Allowed, st.Refused)
}
