package sandbox

import (
	"net"
	"os"
	"slices"
	"testing"
)

// Peers sees this process's connection to a loopback listener, and not the
// listening socket itself.
func TestPeersListsConnectionsNotListeners(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	peers, err := Peers(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	dialed := ln.Addr().(*net.TCPAddr).AddrPort()
	accepted := conn.LocalAddr().(*net.TCPAddr).AddrPort()
	if !slices.Contains(peers, dialed) || !slices.Contains(peers, accepted) {
		t.Errorf("Peers = %v; want both ends of the connection, %s and %s", peers, dialed, accepted)
	}
	for _, p := range peers {
		if p.Port() == 0 {
			t.Errorf("Peers = %v: a listening socket's unset peer is listed", peers)
		}
	}
}
