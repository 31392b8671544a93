package sandboxtest

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// LoopbackServer is an HTTP server on 127.0.0.1 that answers every request
// with Token, so a test can tell it reached this very server.
type LoopbackServer struct {
	Addr  netip.AddrPort
	Token string
}

// LoopbackHTTP serves a LoopbackServer until the test ends.
func LoopbackHTTP(t testing.TB) *LoopbackServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	srv := &LoopbackServer{Addr: ln.Addr().(*net.TCPAddr).AddrPort(), Token: "piceli-" + randomHex(t)}
	hs := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, srv.Token) }),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return srv
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("random token: %v", err)
	}
	return hex.EncodeToString(b)
}

// WriteCRILog writes lines as a CRI-format container log (one
// "<RFC3339Nano time> stdout F <line>" record each) in a temporary directory
// and returns its path.
func WriteCRILog(t testing.TB, lines ...string) string {
	t.Helper()
	var b strings.Builder
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, line := range lines {
		ts := at.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		b.WriteString(ts + " stdout F " + line + "\n")
	}
	path := filepath.Join(t.TempDir(), "container.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("write CRI log: %v", err)
	}
	return path
}
