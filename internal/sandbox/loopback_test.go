package sandbox_test

import (
	"net/url"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Every node address is loopback and no sandbox component listens on a
// non-loopback address.
func TestSandboxIsLoopbackOnly(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	nodes, err := sb.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("list nodes = %d nodes, %v; want at least one", len(nodes.Items), err)
	}
	for i := range nodes.Items {
		if bad := nonLoopback(&nodes.Items[i]); len(bad) > 0 {
			t.Errorf("Node/%s has non-loopback addresses %v", nodes.Items[i].Name, bad)
		}
	}
	st := sandboxStatus(t, sb)
	for _, c := range st.Components {
		assertLoopbackListener(t, c)
	}
	assertServesAPI(t, sb, st)
}

func sandboxStatus(t *testing.T, sb *sandboxtest.Sandbox) sandbox.Status {
	t.Helper()
	s, err := sandbox.Open(sandbox.Options{Name: sb.Name, Dir: sb.Dir})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(t.Context())
	if err != nil || !st.Running || len(st.Components) < 5 {
		t.Fatalf("status of sandbox %q = running %t, %d components, %v; want 5 running components",
			sb.Name, st.Running, len(st.Components), err)
	}
	return st
}

// assertLoopbackListener fails when the component listens nowhere (the
// check would prove nothing) or anywhere but loopback.
func assertLoopbackListener(t *testing.T, c sandbox.ComponentStatus) {
	t.Helper()
	if len(c.Listen) == 0 {
		t.Errorf("%s (pid %d) listens on no TCP address; want at least one on loopback", c.Name, c.PID)
	}
	for _, a := range c.Listen {
		if !isLoopbackAddr(a) {
			t.Errorf("%s (pid %d) listens on %s, not loopback", c.Name, c.PID, a)
		}
	}
}

// assertServesAPI checks that the listener scan sees the API server's port,
// so an empty or wrong scan cannot pass silently.
func assertServesAPI(t *testing.T, sb *sandboxtest.Sandbox, st sandbox.Status) {
	t.Helper()
	u, err := url.Parse(sb.RESTConfig.Host)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Components {
		for _, a := range c.Listen {
			if c.Name == "kube-apiserver" && a == u.Host {
				return
			}
		}
	}
	t.Errorf("no kube-apiserver listener at %s in %+v", u.Host, st.Components)
}
