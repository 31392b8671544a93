package sandbox

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpListen is the st column of /proc/net/tcp for a listening socket.
const tcpListen = "0A"

// Listeners returns the TCP addresses the process pid listens on, read from
// /proc (Linux only). It does not report UDP or unix sockets.
func Listeners(pid int) ([]netip.AddrPort, error) {
	inodes, err := socketInodes(pid)
	if err != nil {
		return nil, err
	}
	var addrs []netip.AddrPort
	for _, table := range []string{"tcp", "tcp6"} {
		path := fmt.Sprintf("/proc/%d/net/%s", pid, table)
		found, err := listeningSockets(path, inodes)
		if err != nil {
			return nil, err
		}
		addrs = append(addrs, found...)
	}
	return addrs, nil
}

// socketInodes lists the inodes of the sockets open in pid.
func socketInodes(pid int) (map[string]bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list sockets of pid %d: %w", pid, err)
	}
	inodes := map[string]bool{}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed since ReadDir
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return inodes, nil
}

// listeningSockets parses a /proc/net/tcp{,6} table and returns the local
// addresses of listening sockets whose inode is in inodes.
func listeningSockets(path string, inodes map[string]bool) ([]netip.AddrPort, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var addrs []netip.AddrPort
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != tcpListen || !inodes[fields[9]] {
			continue
		}
		addr, err := parseProcAddr(fields[1])
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		addrs = append(addrs, addr)
	}
	return addrs, sc.Err()
}

// parseProcAddr decodes "0100007F:1F90" (IPv4) or the 32-hex-digit IPv6 form:
// the address is stored as 32-bit words in host (little-endian) order.
func parseProcAddr(s string) (netip.AddrPort, error) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q: no port", s)
	}
	raw, err := hex.DecodeString(hexIP)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q: bad ip", s)
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: bad port", s)
	}
	ip, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(ip.Unmap(), uint16(port)), nil
}
