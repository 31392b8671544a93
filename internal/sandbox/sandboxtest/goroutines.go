package sandboxtest

import (
	"runtime"
	"testing"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// CloseIdleConnections closes the idle API connections of the test's own
// clients (its clientset's, and client-go's shared transport for its
// config, which in-process commands use too), whose reading goroutines
// would otherwise count against the code under test.
func (s *Sandbox) CloseIdleConnections() {
	if rc, ok := s.Clientset.CoreV1().RESTClient().(*rest.RESTClient); ok {
		utilnet.CloseIdleConnectionsFor(rc.Client.Transport)
	}
	if rt, err := rest.TransportFor(s.RESTConfig); err == nil {
		utilnet.CloseIdleConnectionsFor(rt)
	}
}

// GoroutinesBack waits up to 5 s for the goroutine count to drop to want
// (idle HTTP connections close lazily) and otherwise fails the test with
// every goroutine's stack; after says what ended, for the message.
func GoroutinesBack(t testing.TB, want int, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > want {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after %s, %d before it started:\n%s", n, after, want, buf[:runtime.Stack(buf, true)])
	}
}
