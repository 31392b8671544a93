package sandbox_test

import (
	"net/url"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Every node address is loopback, no sandbox component listens on a
// non-loopback address nor talks to one, and the agent listens on no TCP port at
// all: on the shared sandbox, and on a sandbox started with the agent (the
// shared one may have been started without it).
func TestSandboxIsLoopbackOnly(t *testing.T) {
	t.Run("shared sandbox", func(t *testing.T) {
		assertLoopbackOnly(t, sandboxtest.Cluster(t), false)
	})
	t.Run("sandbox with the agent", func(t *testing.T) {
		assertLoopbackOnly(t, agentSandbox(t), true)
	})
}

// assertLoopbackOnly checks sb's nodes and processes; wantAgent requires
// the agent among them.
func assertLoopbackOnly(t *testing.T, sb *sandboxtest.Sandbox, wantAgent bool) {
	t.Helper()
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
	if wantAgent && !slices.Contains(componentNames(st), sandbox.AgentName) {
		t.Fatalf("components of sandbox %q = %v; want %s among them", sb.Name, componentNames(st), sandbox.AgentName)
	}
	for _, c := range st.Components {
		assertLoopbackListener(t, c)
		assertLoopbackPeers(t, c)
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

// assertLoopbackListener fails when a component listens anywhere but
// loopback, when a control-plane component listens nowhere (the check would
// prove nothing) and when the agent listens on any TCP port: it needs none
// (its egress proxy serves a unix socket).
func assertLoopbackListener(t *testing.T, c sandbox.ComponentStatus) {
	t.Helper()
	if c.Name == sandbox.AgentName {
		if len(c.Listen) > 0 {
			t.Errorf("%s (pid %d) listens on %v; want no listener", c.Name, c.PID, c.Listen)
		}
		return
	}
	if len(c.Listen) == 0 {
		t.Errorf("%s (pid %d) listens on no TCP address; want at least one on loopback", c.Name, c.PID)
	}
	for _, a := range c.Listen {
		if !isLoopbackAddr(a) {
			t.Errorf("%s (pid %d) listens on %s, not loopback", c.Name, c.PID, a)
		}
	}
}

// assertLoopbackPeers fails when a component has a TCP connection to
// anything but loopback, or none at all (every component talks to the API
// server or etcd).
func assertLoopbackPeers(t *testing.T, c sandbox.ComponentStatus) {
	t.Helper()
	peers, err := sandbox.Peers(c.PID)
	if err != nil {
		t.Fatalf("connections of %s (pid %d): %v", c.Name, c.PID, err)
	}
	if len(peers) == 0 {
		t.Errorf("%s (pid %d) has no TCP connection; want at least one, to loopback", c.Name, c.PID)
	}
	for _, p := range peers {
		if !p.Addr().IsLoopback() {
			t.Errorf("%s (pid %d) is connected to %s, not loopback", c.Name, c.PID, p)
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
