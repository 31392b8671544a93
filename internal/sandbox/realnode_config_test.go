package sandbox

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/rundir"
)

func testRealNode(t *testing.T) (realNode, nodeState) {
	t.Helper()
	l, err := NewLayout("/srv/sandbox", "demo")
	if err != nil {
		t.Fatal(err)
	}
	n := l.realNode()
	return n, nodeState{ClusterDir: n.clusterDir, Bridge: n.bridge(), Subnet: "10.213.7.0/24", CgroupRoot: n.cgroupRoot()}
}

// The host check names every missing piece and the Debian package that
// brings it, and what it found otherwise.
func TestHostCheckNamesMissingPackages(t *testing.T) {
	cni := t.TempDir()
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	lacking := func(missing ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, m := range missing {
				if m == name {
					return "", errors.New("not found")
				}
			}
			return found(name)
		}
	}
	_, err := hostCheck{euid: 1000, lookPath: lacking("runc", "ip", "ctr"), cniDirs: []string{cni}, filesystems: []byte("nodev\tproc\n")}.check()
	if !errors.Is(err, ErrRealNodeUnavailable) {
		t.Fatalf("check() = %v, want ErrRealNodeUnavailable", err)
	}
	for _, want := range []string{"root only (effective uid is 1000)", "runc not found on PATH: install the Debian package runc",
		"ip not found on PATH: install the Debian package iproute2", "ctr not found on PATH: install the Debian package containerd",
		"install the Debian package containernetworking-plugins", "no overlay filesystem"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("check() error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "containerd-shim") {
		t.Errorf("check() names containerd-shim-runc-v2, which was found:\n%v", err)
	}

	for _, p := range cniPlugins {
		if err := os.WriteFile(filepath.Join(cni, p), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tools, err := hostCheck{euid: 0, lookPath: found, cniDirs: []string{"/nonexistent", cni}, filesystems: []byte("nodev\toverlay\n")}.check()
	if err != nil {
		t.Fatalf("check() of a complete host = %v", err)
	}
	if diff := cmp.Diff(hostTools{containerd: "/usr/bin/containerd", ctr: "/usr/bin/ctr", ip: "/usr/bin/ip", cniDir: cni}, tools,
		cmp.AllowUnexported(hostTools{})); diff != "" {
		t.Errorf("check() tools (-want +got):\n%s", diff)
	}
}

// The pods' network: the bridge plugin on the sandbox's bridge, no gateway
// route, no default route, no masquerade, allocations under the node's
// directory.
func TestCNIConfigGivesPodsNoWayOut(t *testing.T) {
	n, st := testRealNode(t)
	raw, err := renderCNIConfig(n, st)
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Name    string
		Plugins []map[string]any
	}
	if err := json.Unmarshal(raw, &conf); err != nil {
		t.Fatal(err)
	}
	if len(conf.Plugins) != 1 {
		t.Fatalf("plugins = %v; want only the bridge", conf.Plugins)
	}
	p := conf.Plugins[0]
	ipam := p["ipam"].(map[string]any)
	got := map[string]any{"type": p["type"], "bridge": p["bridge"], "isGateway": p["isGateway"], "isDefaultGateway": p["isDefaultGateway"],
		"ipMasq": p["ipMasq"], "routes": ipam["routes"], "dataDir": ipam["dataDir"], "ranges": ipam["ranges"]}
	want := map[string]any{"type": "bridge", "bridge": st.Bridge, "isGateway": false, "isDefaultGateway": false,
		"ipMasq": false, "routes": []any{}, "dataDir": n.cniDataDir(),
		"ranges": []any{[]any{map[string]any{"subnet": "10.213.7.0/24", "gateway": "10.213.7.1"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CNI bridge config (-want +got):\n%s", diff)
	}
	if conf.Name != n.network() || !strings.HasPrefix(n.cniDataDir(), n.clusterDir+"/") {
		t.Errorf("network %q, data dir %s; want %s under %s", conf.Name, n.cniDataDir(), n.network(), n.clusterDir)
	}
}

// The kubelet serves on loopback only (no read-only or healthz port), with
// the settings these hosts need and its files under the node's directory.
func TestKubeletConfigServesOnLoopback(t *testing.T) {
	n, st := testRealNode(t)
	raw, err := renderKubeletConfig(n, st, 41234)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"kind": "KubeletConfiguration", "address": "127.0.0.1", "port": float64(41234), "readOnlyPort": float64(0),
		"healthzPort": float64(0), "failCgroupV1": false, "failSwapOn": false, "cgroupDriver": "cgroupfs",
		"cgroupRoot": "/" + st.CgroupRoot, "resolvConf": "", "imageGCHighThresholdPercent": float64(100),
		"containerRuntimeEndpoint": "unix://" + n.containerdSocket(),
		"podLogsDir":               filepath.Join(n.dir, "pod-logs"), "volumePluginDir": filepath.Join(n.dir, "volume-plugins"),
	}
	got := map[string]any{}
	for k := range want {
		got[k] = cfg[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubelet config (-want +got):\n%s", diff)
	}
}

// containerd keeps its files under the node's directory, its sockets in
// the node's runtime directory (no debug socket), and listens on TCP only
// for the CRI streaming server, on loopback.
func TestContainerdConfigIsPrivate(t *testing.T) {
	n, _ := testRealNode(t)
	raw, err := renderContainerdConfig(n, hostTools{cniDir: "/usr/lib/cni"})
	if err != nil {
		t.Fatal(err)
	}
	type address struct{ Address string }
	var cfg struct {
		Root, State string
		GRPC        address `toml:"grpc"`
		TTRPC       address `toml:"ttrpc"`
		Debug       address `toml:"debug"`
		Plugins     map[string]map[string]any
	}
	if _, err := toml.Decode(string(raw), &cfg); err != nil {
		t.Fatalf("decode containerd config: %v\n%s", err, raw)
	}
	for _, p := range []string{cfg.Root, cfg.State} {
		if !strings.HasPrefix(p, n.dir+"/") {
			t.Errorf("containerd path %s is not under %s", p, n.dir)
		}
	}
	if diff := cmp.Diff([]string{n.containerdSocket(), n.ttrpcSocket(), ""}, []string{cfg.GRPC.Address, cfg.TTRPC.Address, cfg.Debug.Address}); diff != "" {
		t.Errorf("containerd's gRPC, ttrpc and debug sockets (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(n.containerdSocket(), n.run+"/") || !strings.HasPrefix(n.ttrpcSocket(), n.run+"/") {
		t.Errorf("containerd sockets %s, %s are not in the runtime directory %s", n.containerdSocket(), n.ttrpcSocket(), n.run)
	}
	cri := cfg.Plugins["io.containerd.grpc.v1.cri"]
	want := map[string]any{"sandbox_image": PauseImage, "stream_server_address": "127.0.0.1", "stream_server_port": "0",
		"restrict_oom_score_adj": true, "netns_mounts_under_state_dir": true}
	got := map[string]any{}
	for k := range want {
		got[k] = cri[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("containerd CRI config (-want +got):\n%s", diff)
	}
	runc := cri["containerd"].(map[string]any)["runtimes"].(map[string]any)["runc"].(map[string]any)["options"].(map[string]any)
	if root, _ := runc["Root"].(string); !strings.HasPrefix(root, n.dir+"/") || runc["SystemdCgroup"] != false {
		t.Errorf("runc options %v; want Root under %s, SystemdCgroup false", runc, n.dir)
	}
}

// deepCheckout is an absolute checkout path of 200 characters in nested
// folders.
func deepCheckout() string {
	path := ""
	for len(path)+11 < 200 {
		path += "/a-deep-dir" // 11 bytes each
	}
	return path + "/" + strings.Repeat("x", 200-len(path)-1)
}

// Every socket the real node creates fits in a unix socket address for a
// checkout of 200 characters, as root and as any other user, with the
// longest sandbox name: none depends on the checkout's depth. In the
// node's own directory, where they were once, they would not fit.
func TestSocketPathsFitWhateverTheCheckoutDepth(t *testing.T) {
	checkout := deepCheckout()
	if len(checkout) != 200 {
		t.Fatalf("deepCheckout() is %d characters, want 200", len(checkout))
	}
	l, err := NewLayout(filepath.Join(checkout, DirName), strings.Repeat("n", 32))
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []int{0, 1000, 4294967294} {
		n := l.realNode()
		n.run = rundir.ForUser(uid, n.clusterDir).Path
		for _, p := range n.sockets() {
			if err := rundir.CheckSocket(p); err != nil {
				t.Errorf("uid %d: %v", uid, err)
			}
			if !strings.HasPrefix(p, n.run+"/") || strings.Contains(p, checkout) {
				t.Errorf("uid %d: socket %s is not in the runtime directory %s, apart from the checkout", uid, p, n.run)
			}
		}
	}
	for _, dir := range fixedSockets {
		if p := dir + strings.Repeat("f", 64); len(p) > rundir.MaxSocketPath { // a shim's socket is named by a SHA-256
			t.Errorf("fixed socket %s is %d bytes", p, len(p))
		}
	}
	old := l.realNode().as(nodeState{}) // sockets in the node's directory
	if err := rundir.CheckSocket(old.sockets()[2]); err == nil {
		t.Errorf("socket %s in the node's own directory fits; this test would not catch a socket put back there", old.sockets()[2])
	}
}

// Two sandboxes in different directories, or with different names, get
// different runtime directories; the same sandbox always the same one.
func TestRuntimeDirsDifferPerSandbox(t *testing.T) {
	runOf := func(dir, name string) string {
		l, err := NewLayout(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		return l.realNode().run
	}
	a, b, c := runOf("/src/one/.piceli-sandbox", "piceli"), runOf("/src/two/.piceli-sandbox", "piceli"), runOf("/src/one/.piceli-sandbox", "other")
	if a == b || a == c || b == c {
		t.Errorf("runtime directories %s, %s, %s; want three different ones", a, b, c)
	}
	if again := runOf("/src/one/.piceli-sandbox", "piceli"); again != a {
		t.Errorf("runtime directory of the same sandbox = %s, then %s", a, again)
	}
	if want := rundir.Base(os.Geteuid()); filepath.Dir(a) != want {
		t.Errorf("runtime directory %s is not in %s", a, want)
	}
}

// A runtime directory the node cannot use is refused before anything
// starts, as the real node being unavailable (exit 2), saying why.
func TestUnusableRuntimeDirIsRefused(t *testing.T) {
	n, _ := testRealNode(t)
	base := filepath.Join(t.TempDir(), "base")
	if err := os.Mkdir(base, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	n.run = filepath.Join(base, n.id)
	err := checkRuntimeDir(n)
	if !errors.Is(err, ErrRealNodeUnavailable) || !errors.Is(err, rundir.ErrUnusable) || !strings.Contains(err.Error(), base+" has mode 0777") {
		t.Errorf("checkRuntimeDir(world-writable base) = %v; want the real node unavailable, naming %s and its mode", err, base)
	}
	if err := os.Chmod(base, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkRuntimeDir(n); err != nil {
		t.Errorf("checkRuntimeDir(private base) = %v, want nil", err)
	}
}

func TestRoutePrefixesSkipsDefaultRoute(t *testing.T) {
	path := filepath.Join(t.TempDir(), "route")
	table := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" +
		"eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
		"br0\t0000D50A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := routePrefixes(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("10.213.0.0/16")}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("routePrefixes (-want +got):\n%s", diff)
	}
}

func TestPickSubnetAvoidsUsedNetworks(t *testing.T) {
	used := []netip.Prefix{netip.MustParsePrefix("10.213.7.0/24"), netip.MustParsePrefix("10.213.8.0/23"),
		netip.MustParsePrefix("10.213.255.0/24")}
	tests := map[string]struct {
		first byte
		want  string
	}{
		"the one the id points at when free":    {first: 6, want: "10.213.6.0/24"},
		"the next free one when it is taken":    {first: 7, want: "10.213.10.0/24"},
		"wrapping around at the end of the /16": {first: 255, want: "10.213.0.0/24"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := pickSubnet(tc.first, used)
			if err != nil || got.String() != tc.want {
				t.Errorf("pickSubnet(%d) = %s, %v; want %s", tc.first, got, err, tc.want)
			}
		})
	}
	if _, err := pickSubnet(0, []netip.Prefix{subnetPool}); err == nil {
		t.Error("pickSubnet with the whole pool in use succeeded, want an error")
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a\040b`: "/tmp/a b", `/plain`: "/plain", `/x\134y`: `/x\y`, `/end\04`: `/end\04`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCtrImportOutputNames(t *testing.T) {
	out := "unpacking localhost/piceli-test/app:1 (sha256:e9581f69794045cc)...done\n" +
		"unpacking docker.io/library/web:2 (sha256:0123abcd)...done\nsomething else\n"
	var got []string
	for _, m := range unpackedRE.FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	if diff := cmp.Diff([]string{"localhost/piceli-test/app:1", "docker.io/library/web:2"}, got); diff != "" {
		t.Errorf("names from ctr output (-want +got):\n%s", diff)
	}
}

// One real node per machine: a second sandbox is refused while the first
// has not torn its node down, and takes a claim whose owner is gone.
func TestMachineClaimIsExclusive(t *testing.T) {
	old, oldFind := machineClaim, findOtherKubelet
	machineClaim = filepath.Join(t.TempDir(), "claim")
	findOtherKubelet = func(realNode) (int, bool) { return 0, false }
	t.Cleanup(func() { machineClaim, findOtherKubelet = old, oldFind })
	nodeIn := func(name string) realNode {
		l, err := NewLayout(t.TempDir(), name)
		if err != nil {
			t.Fatal(err)
		}
		return l.realNode()
	}
	first, second := nodeIn("first"), nodeIn("second")
	if err := claimMachine(first); err != nil {
		t.Fatal(err)
	}
	if err := writeNodeState(first, nodeState{ClusterDir: first.clusterDir}); err != nil {
		t.Fatal(err)
	}
	if err := claimMachine(first); err != nil {
		t.Errorf("claimMachine again by its holder = %v, want nil", err)
	}
	err := claimMachine(second)
	if !errors.Is(err, ErrRealNodeUnavailable) || !strings.Contains(err.Error(), first.clusterDir) {
		t.Fatalf("claimMachine(second) while first runs = %v; want a refusal naming %s", err, first.clusterDir)
	}
	if err := os.Remove(first.stateFile()); err != nil {
		t.Fatal(err)
	}
	if err := claimMachine(second); err != nil {
		t.Fatalf("claimMachine(second) after first was torn down = %v", err)
	}
	if err := releaseMachine(first); err != nil {
		t.Fatal(err)
	}
	if held, err := readClaim(); err != nil || held.ClusterDir != second.clusterDir {
		t.Errorf("claim after first released = %+v, %v; want second's", held, err)
	}
}

// Up asked for a real node on a sandbox running without one refuses to
// pretend: it cannot gain one without a restart.
func TestRealNodeOfRunningSandboxWithoutOne(t *testing.T) {
	l, err := NewLayout(t.TempDir(), "plain")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{layout: l, opts: Options{RealNode: true}}
	if _, err := s.realNodeOf(); err == nil || !strings.Contains(err.Error(), "runs without a real node") {
		t.Errorf("realNodeOf() = %v; want an error saying the sandbox runs without a real node", err)
	}
	s.opts.RealNode = false
	if info, err := s.realNodeOf(); err != nil || info.Name != "" || info.fakeNodeTaints() != nil {
		t.Errorf("realNodeOf() without RealNode = %+v, %v; want no node and no taints", info, err)
	}
}

// Tearing down a node whose cgroups, bridge and mounts are already gone
// (after a reboot, or a second Down) finds nothing to do and fails on
// nothing.
func TestTearDownOfNothingIsQuiet(t *testing.T) {
	dirs, err := cgroupDirs("piceli-never-created")
	if err != nil || len(dirs) != 0 {
		t.Errorf("cgroupDirs(missing root) = %v, %v; want none", dirs, err)
	}
	if err := removeCgroups("piceli-never-created"); err != nil {
		t.Errorf("removeCgroups(missing root) = %v", err)
	}
	if err := deleteBridge("pclnever"); err != nil {
		t.Errorf("deleteBridge(missing bridge) = %v", err)
	}
	if err := unmountUnder(t.TempDir()); err != nil {
		t.Errorf("unmountUnder(dir with no mounts) = %v", err)
	}
}
