package sandbox

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"strings"
)

// Peers returns the remote addresses of the TCP connections the process pid
// has open (listening sockets excluded), read from /proc (Linux only), so a
// test can check that a component talks to loopback and nothing else.
func Peers(pid int) ([]netip.AddrPort, error) {
	inodes, err := socketInodes(pid)
	if err != nil {
		return nil, err
	}
	var peers []netip.AddrPort
	for _, table := range []string{"tcp", "tcp6"} {
		found, err := connectedPeers(fmt.Sprintf("/proc/%d/net/%s", pid, table), inodes)
		if err != nil {
			return nil, err
		}
		peers = append(peers, found...)
	}
	return peers, nil
}

// connectedPeers parses a /proc/net/tcp{,6} table and returns the remote
// addresses of non-listening sockets whose inode is in inodes.
func connectedPeers(path string, inodes map[string]bool) ([]netip.AddrPort, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var peers []netip.AddrPort
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] == tcpListen || !inodes[fields[9]] {
			continue
		}
		addr, err := parseProcAddr(fields[2])
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		peers = append(peers, addr)
	}
	return peers, sc.Err()
}
