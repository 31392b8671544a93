package sandbox

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/bits"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The pods' network is a /24 of subnetPool, on a bridge of the sandbox's
// own. The bridge holds the subnet's first address, so the host (the
// kubelet's probes) reaches the pods; the pods get no gateway and no
// default route, nothing masquerades their traffic and IP forwarding is
// not touched, so nothing in a pod reaches an address off the machine.
var subnetPool = netip.MustParsePrefix("10.213.0.0/16")

// chooseSubnet picks the /24 of subnetPool for the node with id: the one
// id points at, or the next one no host address or route overlaps.
func chooseSubnet(id string) (netip.Prefix, error) {
	used, err := hostPrefixes()
	if err != nil {
		return netip.Prefix{}, err
	}
	seed, _ := hex.DecodeString(id)
	return pickSubnet(seed[0], used)
}

// pickSubnet returns the first /24 of subnetPool, from the first-th on,
// that overlaps none of used.
func pickSubnet(first byte, used []netip.Prefix) (netip.Prefix, error) {
	base := subnetPool.Addr().As4()
	for i := range 256 {
		b := base
		b[2] = first + byte(i)
		candidate := netip.PrefixFrom(netip.AddrFrom4(b), 24)
		if !overlapsAny(candidate, used) {
			return candidate, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("choose the pods' subnet: every /24 of %s is in use on this host", subnetPool)
}

func overlapsAny(p netip.Prefix, used []netip.Prefix) bool {
	for _, u := range used {
		if u.Overlaps(p) {
			return true
		}
	}
	return false
}

// hostPrefixes lists the host's IPv4 interface networks and routes (the
// main table, from /proc/net/route) other than the default route.
func hostPrefixes() ([]netip.Prefix, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("list host addresses: %w", err)
	}
	var out []netip.Prefix
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			if p, err := netip.ParsePrefix(ipn.String()); err == nil && p.Addr().Is4() {
				out = append(out, p.Masked())
			}
		}
	}
	routes, err := routePrefixes("/proc/net/route")
	return append(out, routes...), err
}

// routePrefixes parses /proc/net/route: little-endian hex destination and
// mask per line. The default route (mask 0) is left out.
func routePrefixes(path string) ([]netip.Prefix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read host routes: %w", err)
	}
	defer f.Close()
	var out []netip.Prefix
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		dst, err1 := hex.DecodeString(fields[1])
		mask, err2 := hex.DecodeString(fields[7])
		if err1 != nil || err2 != nil || len(dst) != 4 || len(mask) != 4 {
			continue
		}
		ones := bits.OnesCount32(binary.LittleEndian.Uint32(mask))
		if ones == 0 {
			continue
		}
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], binary.LittleEndian.Uint32(dst))
		out = append(out, netip.PrefixFrom(netip.AddrFrom4(a), ones).Masked())
	}
	return out, sc.Err()
}

// bridgeAddress is the subnet's first address, held by the bridge.
func bridgeAddress(subnet netip.Prefix) netip.Prefix {
	return netip.PrefixFrom(subnet.Addr().Next(), subnet.Bits())
}

// createBridge creates the bridge, gives it the subnet's first address and
// brings it up. A bridge of that name left by an earlier start is reused.
func createBridge(name, subnet string) error {
	p, err := netip.ParsePrefix(subnet)
	if err != nil {
		return fmt.Errorf("pods' subnet %q: %w", subnet, err)
	}
	if !linkExists(name) {
		if err := ipCommand("link", "add", name, "type", "bridge"); err != nil {
			return err
		}
	}
	if err := ipCommand("addr", "replace", bridgeAddress(p).String(), "dev", name); err != nil {
		return err
	}
	return ipCommand("link", "set", name, "up")
}

// deleteBridge deletes the veths still attached to the bridge, then the
// bridge. Both are gone already when nothing was left.
func deleteBridge(name string) error {
	if !linkExists(name) {
		return nil
	}
	ports, err := bridgePorts(name)
	if err != nil {
		return err
	}
	for _, p := range ports {
		if err := ipCommand("link", "del", p); err != nil && linkExists(p) {
			return err
		}
	}
	return ipCommand("link", "del", name)
}

// linkExists reports whether the host has a network interface name.
func linkExists(name string) bool {
	_, err := os.Stat(filepath.Join("/sys/class/net", name))
	return err == nil
}

// bridgePorts lists the interfaces attached to the bridge.
func bridgePorts(name string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join("/sys/class/net", name, "brif"))
	if err != nil {
		return nil, fmt.Errorf("list ports of bridge %s: %w", name, err)
	}
	var ports []string
	for _, e := range entries {
		ports = append(ports, e.Name())
	}
	return ports, nil
}

func ipCommand(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// cniConfList is the node's CNI network: the bridge plugin on the
// sandbox's bridge with host-local addresses from the subnet, keeping its
// allocations under the node's directory. No gateway for the pods, no
// masquerade.
type cniConfList struct {
	CNIVersion string      `json:"cniVersion"`
	Name       string      `json:"name"`
	Plugins    []cniBridge `json:"plugins"`
}

type cniBridge struct {
	Type        string  `json:"type"`
	Bridge      string  `json:"bridge"`
	IsGateway   bool    `json:"isGateway"`
	IsDefaultGW bool    `json:"isDefaultGateway"`
	IPMasq      bool    `json:"ipMasq"`
	HairpinMode bool    `json:"hairpinMode"`
	IPAM        cniIPAM `json:"ipam"`
}

type cniIPAM struct {
	Type    string              `json:"type"`
	Ranges  [][]cniRange        `json:"ranges"`
	Routes  []map[string]string `json:"routes"`
	DataDir string              `json:"dataDir"`
}

type cniRange struct {
	Subnet string `json:"subnet"`
	// Gateway is the bridge's address: host-local never hands it out. The
	// bridge plugin sets no route through it (isGateway false).
	Gateway string `json:"gateway"`
}

func renderCNIConfig(n realNode, st nodeState) ([]byte, error) {
	p, err := netip.ParsePrefix(st.Subnet)
	if err != nil {
		return nil, fmt.Errorf("pods' subnet %q: %w", st.Subnet, err)
	}
	conf := cniConfList{CNIVersion: "1.0.0", Name: n.network(), Plugins: []cniBridge{{
		Type: "bridge", Bridge: st.Bridge,
		IPAM: cniIPAM{Type: "host-local", Ranges: [][]cniRange{{{Subnet: p.String(), Gateway: bridgeAddress(p).Addr().String()}}},
			Routes: []map[string]string{}, DataDir: n.cniDataDir()},
	}}}
	return json.MarshalIndent(conf, "", "  ")
}

func writeCNIConfig(n realNode, st nodeState) error {
	conf, err := renderCNIConfig(n, st)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(n.cniConfDir(), 0o755); err != nil {
		return fmt.Errorf("write CNI config: %w", err)
	}
	return writeFileAtomic(filepath.Join(n.cniConfDir(), "10-piceli.conflist"), append(conf, '\n'), 0o644)
}
