package access

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCandidates(t *testing.T) {
	tests := []struct {
		name string
		port int32
		want []int
	}{
		{"a privileged port goes up by the offset", 80, []int{10080}},
		{"port 1023 is still privileged", 1023, []int{11023}},
		{"an unprivileged port is tried as is, then up by the offset", 8080, []int{8080, 18080}},
		{"near the top the fallback goes down", 60000, []int{60000, 50000}},
		{"65535 itself", 65535, []int{65535, 55535}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Candidates(tt.port)); diff != "" {
				t.Errorf("Candidates(%d) (-want +got):\n%s", tt.port, diff)
			}
		})
	}
}

// occupy listens on 127.0.0.1:0 and returns the port, closed when the
// test ends.
func occupy(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func TestListenRefusesATakenExplicitPort(t *testing.T) {
	taken := occupy(t)
	_, err := listen("", "web", 80, taken)
	var pt *PortTakenError
	if !errors.As(err, &pt) || !pt.Explicit || pt.Tried[0] != taken {
		t.Fatalf("listen(web, 80, %d) error = %v, want a *PortTakenError for that port", taken, err)
	}
	for _, want := range []string{"local port " + strconv.Itoa(taken), "for web (service port 80)", "ask for another local port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestListenFallsBackDeterministically(t *testing.T) {
	// A high port whose fallback (port - offset) is free most of the time;
	// find one where it is, so the test says something either way.
	for range 20 {
		taken := occupy(t)
		fallback := Candidates(int32(taken))[1]
		probe, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(fallback))
		if err != nil {
			continue
		}
		probe.Close()
		ln, err := listen("", "api", int32(taken), 0)
		if err != nil {
			t.Fatalf("listen(api, %d, 0) with %d taken: %v", taken, taken, err)
		}
		defer ln.Close()
		if got := localAddr(ln); got.Port() != uint16(fallback) || !got.Addr().IsLoopback() {
			t.Fatalf("listen(api, %d, 0) bound %s, want 127.0.0.1:%d", taken, got, fallback)
		}
		return
	}
	t.Fatal("found no port whose fallback was free in 20 tries")
}

func TestListenEphemeralIsLoopback(t *testing.T) {
	ln, err := listen("", "web", 80, Ephemeral)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if a := localAddr(ln); a.Addr().String() != Loopback || a.Port() == 0 {
		t.Errorf("listen(Ephemeral) bound %s, want 127.0.0.1 and a port", a)
	}
}

func TestListenBindsOnlyLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0", "::", "192.0.2.1", "localhost"} {
		if ln, err := listen(addr, "web", 8080, Ephemeral); err == nil {
			ln.Close()
			t.Errorf("listen(%q) bound %s, want it refused", addr, ln.Addr())
		}
	}
	for _, addr := range []string{"127.0.0.1", "::1"} {
		ln, err := listen(addr, "web", 8080, Ephemeral)
		if err != nil {
			t.Errorf("listen(%q) = %v, want a loopback listener", addr, err)
			continue
		}
		ln.Close()
	}
}
