package sandboxtest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FreeLocalPort returns a port that nothing listens on now at 127.0.0.1,
// for a test to ask a command to listen on later. It is chosen below the
// kernel's ephemeral range (net.ipv4.ip_local_port_range), because a port
// from that range, free a moment ago, may become the source port of any
// outgoing loopback connection (to the API server, say) before the command
// binds it.
func FreeLocalPort(t testing.TB) int {
	t.Helper()
	low := ephemeralLow()
	for range 200 {
		port := 20000 + rand.IntN(low-20000)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			ln.Close()
			return port
		}
	}
	t.Fatalf("no free port on 127.0.0.1 between 20000 and %d", low)
	return 0
}

// ephemeralLow is the first port of the ephemeral range (Linux default
// 32768).
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(data)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 21000 {
				return n
			}
		}
	}
	return 32768
}
