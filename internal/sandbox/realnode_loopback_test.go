package sandbox_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
)

// With a real node, every listener the sandbox opens is still on loopback,
// the kubelet's and containerd's included, but the API forwarder's, which
// is on the bridge's host address alone, every node address is loopback,
// and a pod has no default route (IPv4 or IPv6): its only route is the
// bridge's subnet, its only name server (if any) its own loopback, the host
// routes nothing else to the bridge, and IP forwarding is as it was.
func TestRealNodeIsLoopbackOnly(t *testing.T) {
	sb := openRealNode(t, 1)
	exposedBefore := nonLoopbackListeners(t)
	forwarding := readSettings(t)["net.ipv4.ip_forward"]
	r := upRealNode(t, sb)
	r.loadNodeApp(t)
	ns := runNodeApp(t, r, 1)

	st := status(t, sb)
	bridgeIP := netip.MustParsePrefix(r.node.Subnet).Addr().Next()
	for _, c := range st.Components {
		if c.Name != sandbox.APIForwarderName {
			assertLoopbackListener(t, c)
		}
	}
	assertForwarderListensOnlyOnBridge(t, st, bridgeIP)
	names := pids(st)
	if _, ok := names["kubelet"]; !ok || st.RealNode == nil || st.RealNode.Bridge != r.node.Bridge {
		t.Fatalf("status = %+v; want the kubelet and containerd among the components and the real node described", st)
	}
	if _, ok := names["containerd"]; !ok {
		t.Fatalf("status components %v lack containerd", names)
	}
	assertKubeletListensForNode(t, r, st)
	nodes, err := r.api.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("list nodes = %d, %v; want the real and the fake one", len(nodes.Items), err)
	}
	for i := range nodes.Items {
		if bad := nonLoopback(&nodes.Items[i]); len(bad) > 0 || len(nodes.Items[i].Status.Addresses) == 0 {
			t.Errorf("Node/%s has addresses %v; want loopback ones only", nodes.Items[i].Name, nodes.Items[i].Status.Addresses)
		}
	}
	wantExposed := append(slices.Clone(exposedBefore), netip.AddrPortFrom(bridgeIP, sandbox.APIForwardPort).String())
	slices.Sort(wantExposed)
	if exposed := nonLoopbackListeners(t); !slices.Equal(exposed, wantExposed) {
		t.Errorf("host listeners off loopback = %v with the sandbox up, %v before; want only the API forwarder's added", exposed, exposedBefore)
	}

	pod := podsOf(t, r.api, ns, "web")[0]
	routes := execInPod(t, r.api, pod.Namespace, pod.Name, "/nodeapp", "cat", "/proc/net/route")
	if got := ipv4Routes(t, routes); !slices.Equal(got, []string{r.node.Subnet}) {
		t.Errorf("routes of Pod/%s/%s = %v, want only %s:\n%s", pod.Namespace, pod.Name, got, r.node.Subnet, routes)
	}
	routes6 := execInPod(t, r.api, pod.Namespace, pod.Name, "/nodeapp", "cat", "/proc/net/ipv6_route")
	if hasIPv6Default(t, routes6) {
		t.Errorf("Pod/%s/%s has an IPv6 default route:\n%s", pod.Namespace, pod.Name, routes6)
	}
	resolv := execInPod(t, r.api, pod.Namespace, pod.Name, "/nodeapp", "cat", "/etc/resolv.conf")
	for _, line := range strings.Split(resolv, "\n") {
		if server, ok := strings.CutPrefix(line, "nameserver "); ok {
			if a, err := netip.ParseAddr(strings.TrimSpace(server)); err != nil || !a.IsLoopback() {
				t.Errorf("Pod/%s/%s names the name server %q; want none off the pod's loopback:\n%s", pod.Namespace, pod.Name, server, resolv)
			}
		}
	}
	host, err := os.ReadFile("/proc/net/route")
	if err != nil {
		t.Fatal(err)
	}
	if got := routesVia(t, string(host), r.node.Bridge); !slices.Equal(got, []string{r.node.Subnet}) {
		t.Errorf("host routes via bridge %s = %v, want only %s", r.node.Bridge, got, r.node.Subnet)
	}
	if got := readSettings(t)["net.ipv4.ip_forward"]; got != forwarding {
		t.Errorf("net.ipv4.ip_forward = %s with the real node up, %s before", got, forwarding)
	}
}

// assertKubeletListensForNode ties the listener scan to what the API server
// dials: the port the node publishes is a kubelet listener on 127.0.0.1.
func assertKubeletListensForNode(t *testing.T, r *realNodeSandbox, st sandbox.Status) {
	t.Helper()
	node, err := r.api.Clientset.CoreV1().Nodes().Get(t.Context(), sandbox.RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("127.0.0.1:%d", node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	for _, c := range st.Components {
		if c.Name == "kubelet" && slices.Contains(c.Listen, want) {
			return
		}
	}
	t.Errorf("no kubelet listener at %s (the port Node/%s publishes) in %+v", want, sandbox.RealNodeName, st.Components)
}

// nonLoopbackListeners lists the host's listening TCP sockets that are not
// on a loopback address, sorted.
func nonLoopbackListeners(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range hostListeners(t) {
		if !l.Addr().IsLoopback() {
			out = append(out, l.String())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ipv4Routes parses a /proc/net/route table into DESTINATION/BITS, the
// default route as 0.0.0.0/0.
func ipv4Routes(t *testing.T, table string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(table, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 7 {
			out = append(out, routePrefix(t, f[1], f[7]).String())
		}
	}
	return out
}

// routesVia lists the routes of a /proc/net/route table through iface.
func routesVia(t *testing.T, table, iface string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(table, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 7 && f[0] == iface {
			out = append(out, routePrefix(t, f[1], f[7]).String())
		}
	}
	return out
}

// routePrefix decodes /proc/net/route's little-endian hex destination and
// mask.
func routePrefix(t *testing.T, dst, mask string) netip.Prefix {
	t.Helper()
	d, err1 := hex.DecodeString(dst)
	m, err2 := hex.DecodeString(mask)
	if err1 != nil || err2 != nil || len(d) != 4 || len(m) != 4 {
		t.Fatalf("route %s/%s: bad hex", dst, mask)
	}
	bits := 0
	for v := binary.LittleEndian.Uint32(m); v != 0; v &= v - 1 {
		bits++
	}
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], binary.LittleEndian.Uint32(d))
	return netip.PrefixFrom(netip.AddrFrom4(a), bits)
}

// hasIPv6Default reports whether a /proc/net/ipv6_route table holds a usable
// default route: destination ::/0, up (RTF_UP) and not a reject route
// (RTF_REJECT, which the kernel keeps on lo in every namespace).
func hasIPv6Default(t *testing.T, table string) bool {
	t.Helper()
	const rtfUp, rtfReject = 0x1, 0x200
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != strings.Repeat("0", 32) || f[1] != "00" {
			continue
		}
		flags, err := strconv.ParseUint(f[8], 16, 32)
		if err != nil {
			t.Fatalf("ipv6 route flags %q: %v", f[8], err)
		}
		if flags&rtfUp != 0 && flags&rtfReject == 0 {
			return true
		}
	}
	return false
}
