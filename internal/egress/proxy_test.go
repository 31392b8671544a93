package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// startProxy serves a proxy allowing loopback on a unix socket until the
// test ends, counting into a stats file withStats.
func startProxy(t testing.TB, withStats bool) (*Proxy, string, *strings.Builder) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "egress.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var mu sync.Mutex
	p := &Proxy{Allow: netip.Addr.IsLoopback, Log: lockedWriter{&mu, &log}}
	if withStats {
		p.StatsFile = filepath.Join(dir, "stats.json")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return p, sock, &log
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// connect sends CONNECT dest through the proxy at sock and returns the
// connection and the response.
func connect(t testing.TB, sock, dest string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", dest)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, br, res
}

func TestProxyTunnelsToLoopback(t *testing.T) {
	p, sock, _ := startProxy(t, true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		defer s.Close()
		io.Copy(s, s) // echo
	}()
	c, br, res := connect(t, sock, ln.Addr().String())
	if res.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT %s: %s; want 200", ln.Addr(), res.Status)
	}
	fmt.Fprint(c, "ping\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("echo through the tunnel: %q, %v", line, err)
	}
	if s := p.Stats(); s.Allowed != 1 || s.Refused != 0 {
		t.Errorf("stats %+v; want 1 allowed, 0 refused", s)
	}
}

func TestProxyRefusesAddressesOffTheMachineAndNames(t *testing.T) {
	p, sock, log := startProxy(t, true)
	for _, dest := range []string{"10.0.0.7:443", "example.com:443", "[::ffff:10.0.0.8]:443", "169.254.169.254:80"} {
		_, _, res := connect(t, sock, dest)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Status, "refuses "+dest) {
			t.Errorf("CONNECT %s: %q; want 403 naming it", dest, res.Status)
		}
	}
	s, ok, err := ReadStats(p.StatsFile)
	if err != nil || !ok {
		t.Fatalf("ReadStats: %v %v", ok, err)
	}
	if s.Schema != StatsSchema || s.Refused != 4 || s.Allowed != 0 || len(s.RecentRefused) != 4 || s.RecentRefused[0] != "10.0.0.7:443" {
		t.Errorf("stats file %+v; want 4 refusals, the first 10.0.0.7:443", s)
	}
	if !strings.Contains(log.String(), "refused 10.0.0.7:443: not an address of this machine") {
		t.Errorf("log lacks the refusal of 10.0.0.7:443:\n%s", log)
	}
}

func TestProxyServesOnlyConnect(t *testing.T) {
	_, sock, _ := startProxy(t, true)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET http://10.0.0.7/ HTTP/1.1\r\nHost: 10.0.0.7\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET through the proxy: %v %v; want 405", res, err)
	}
}

func TestDestination(t *testing.T) {
	for in, want := range map[string]string{"localhost:80": "127.0.0.1:80", "[::1]:6443": "[::1]:6443", "[::ffff:127.0.0.1]:1": "127.0.0.1:1"} {
		got, err := Destination(in)
		if err != nil || got.String() != want {
			t.Errorf("Destination(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"10.0.0.1", "host:80", "127.0.0.1:0", ":80"} {
		if _, err := Destination(in); err == nil {
			t.Errorf("Destination(%q) succeeded; want an error", in)
		}
	}
}
