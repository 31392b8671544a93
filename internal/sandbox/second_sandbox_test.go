package sandbox_test

import (
	"net/url"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A second sandbox with another name runs beside the running one on other
// ports, and stopping it leaves the first untouched.
func TestSecondSandboxRunsBesideTheFirst(t *testing.T) {
	first := sandboxtest.Cluster(t)
	firstPorts := listenPorts(sandboxStatus(t, first))

	sb := openExtra(t)
	info := up(t, sb)
	for port, owner := range listenPorts(status(t, sb)) {
		if other, clash := firstPorts[port]; clash {
			t.Errorf("port %s used by %s of the second sandbox and %s of the first", port, owner, other)
		}
	}
	if u, _ := url.Parse(first.RESTConfig.Host); u.Host == mustHost(t, info.Server) {
		t.Fatalf("both sandboxes serve the API at %s", info.Server)
	}

	if _, err := sb.Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(t.Context()); err != nil {
		t.Fatalf("first sandbox not ready after the second stopped: %v", err)
	}
}

// listenPorts maps each listening address of a sandbox to its component.
func listenPorts(st sandbox.Status) map[string]string {
	out := map[string]string{}
	for _, c := range st.Components {
		for _, a := range c.Listen {
			out[a] = c.Name
		}
	}
	return out
}

func mustHost(t *testing.T, server string) string {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
