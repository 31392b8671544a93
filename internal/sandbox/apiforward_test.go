package sandbox

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestAPIForwardListensOnlyOnTheBridgePoolAndForwardsOnlyToLoopback(t *testing.T) {
	for _, c := range []struct{ listen, target string }{
		{"127.0.0.1:6443", "127.0.0.1:32766"},
		{"0.0.0.0:6443", "127.0.0.1:32766"},
		{"[::]:6443", "127.0.0.1:32766"},
		{"192.168.1.1:6443", "127.0.0.1:32766"},
		{"10.214.0.1:6443", "127.0.0.1:32766"},
		{"10.213.7.1:0", "127.0.0.1:32766"},
		{"10.213.7.1:6443", "10.213.7.5:443"},
		{"10.213.7.1:6443", "192.0.2.1:443"},
		{"10.213.7.1:6443", ""},
		{"", "127.0.0.1:32766"},
	} {
		if err := checkForward(c.listen, c.target); err == nil {
			t.Errorf("checkForward(%q, %q) = nil; want a refusal", c.listen, c.target)
		}
		opts := AgentOptions{Kubeconfig: "/k", VolumeDir: "/v", APIForward: c.listen, APIForwardTo: c.target}
		if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), "--api-forward") {
			t.Errorf("Validate(--api-forward %q --api-forward-to %q) = %v; want a refusal naming the flag", c.listen, c.target, err)
		}
	}
	if err := checkForward("10.213.7.1:6443", "127.0.0.1:32766"); err != nil {
		t.Errorf("checkForward(bridge address, loopback API server) = %v", err)
	}
	if err := checkForward("10.213.7.1:6443", "[::1]:32766"); err != nil {
		t.Errorf("checkForward(bridge address, ::1) = %v", err)
	}
}

func TestAPIServerAddrWantsLoopback(t *testing.T) {
	if got, err := apiServerAddr("https://127.0.0.1:32766"); err != nil || got != "127.0.0.1:32766" {
		t.Errorf("apiServerAddr(loopback) = %q, %v", got, err)
	}
	for _, bad := range []string{"https://10.0.0.1:6443", "https://localhost:6443", "https://127.0.0.1", "::"} {
		if got, err := apiServerAddr(bad); err == nil {
			t.Errorf("apiServerAddr(%q) = %q; want a refusal", bad, got)
		}
	}
}

// serveForward runs forwardConns on a loopback listener until the test
// ends, returning the listener's address.
func serveForward(t *testing.T, target string, limit int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- forwardConns(ctx, ln, target, limit) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("forwardConns after cancel = %v; want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("forwardConns did not return after cancel")
		}
	})
	return ln.Addr().String()
}

func TestForwardConnsPassesTLSToTheTargetUntouched(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "api server at "+r.URL.Path)
	}))
	defer srv.Close()
	addr := serveForward(t, srv.Listener.Addr().String(), 4)
	// The client verifies the target's own certificate (example.com is
	// its name) while dialling the forwarder.
	client := srv.Client()
	for i := range 3 {
		resp, err := client.Get("https://" + addr + "/version")
		if err != nil {
			t.Fatalf("GET %d through the forwarder: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "api server at /version" {
			t.Errorf("GET %d through the forwarder = %q", i, body)
		}
		client.CloseIdleConnections()
	}
}

func TestForwardConnsBoundsConnections(t *testing.T) {
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := target.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	addr := serveForward(t, target.Addr().String(), 2)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		select {
		case up := <-accepted:
			defer up.Close()
		case <-time.After(5 * time.Second):
			t.Fatalf("connection %d not forwarded", i)
		}
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("read from a connection past the limit = %v; want it closed", err)
	}
	select {
	case <-accepted:
		t.Error("a connection past the limit reached the target")
	case <-time.After(200 * time.Millisecond):
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

func TestRenderConfigGivesTheCertificateTheBridgeAddress(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "", "10.213.7.1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "kubeApiserverCertSANs:\n  - 10.213.7.1\n") {
		t.Errorf("renderConfig() lacks the bridge address among the certificate's names:\n%s", out)
	}
	out, err = renderConfig(Binaries{Dir: "/cache/bin"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "kubeApiserverCertSANs") {
		t.Errorf("renderConfig() without a real node names extra certificate names:\n%s", out)
	}
}

func TestRealNodeInfoAPIServerEnv(t *testing.T) {
	r := RealNodeInfo{APIServer: "https://10.213.7.1:6443", APIServerName: APIServerName}
	env := r.APIServerEnv()
	if len(env) != 2 || env[0].Name != "KUBERNETES_SERVICE_HOST" || env[0].Value != "10.213.7.1" ||
		env[1].Name != "KUBERNETES_SERVICE_PORT" || env[1].Value != "6443" {
		t.Errorf("APIServerEnv() = %+v", env)
	}
	if env := (RealNodeInfo{}).APIServerEnv(); env != nil {
		t.Errorf("APIServerEnv() without a forwarder = %+v; want none", env)
	}
	if api, name := apiServerForPods(nodeState{APIForward: "10.213.7.1:6443"}); api != "https://10.213.7.1:6443" || name != "kubernetes" {
		t.Errorf("apiServerForPods() = %q, %q", api, name)
	}
}
