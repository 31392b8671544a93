package sandbox_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/netip"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/rundir"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// hostSettings are the kernel settings the kubelet changes; Down restores
// them.
var hostSettings = []string{"vm.overcommit_memory", "vm.panic_on_oom", "kernel.panic", "kernel.panic_on_oops",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes", "net.ipv4.ip_forward"}

// hostPaths are where the kubelet, containerd and CNI write outside the
// sandbox whatever they are told.
var hostPaths = []string{"/var/lib/kubelet/device-plugins", "/var/lib/kubelet", "/var/log/containers",
	"/var/lib/cni/results", "/var/lib/cni", "/run/containerd/s", "/run/containerd", "/run/piceli-real-node",
	rundir.Base(0)}

// Down with pods running leaves no process, mount, bridge, veth, network
// namespace, cgroup, listener, host setting or runtime directory of the
// real node behind, as /proc, /proc/mounts, /sys/fs/cgroup and `ip link`
// show; Up works again after it.
func TestRealNodeDownLeavesNothing(t *testing.T) {
	sb := openRealNode(t, 0)
	settings, existed := readSettings(t), existing(hostPaths)
	r := upRealNode(t, sb)
	r.loadNodeApp(t)
	runNodeApp(t, r, 2)
	before := observeNode(t, r)

	stopped, err := sb.Down(t.Context())
	if err != nil || !stopped {
		t.Fatalf("Down = %t, %v; want true, nil", stopped, err)
	}
	before.assertGone(t, sb)
	if got := readSettings(t); !maps.Equal(got, settings) {
		t.Errorf("kernel settings after Down = %v, want those before Up %v", got, settings)
	}
	if got := existing(hostPaths); !slices.Equal(got, existed) {
		t.Errorf("host paths after Down = %v, want those that existed before Up: %v", got, existed)
	}

	r = upRealNode(t, sb)
	r.loadNodeApp(t)
	runNodeApp(t, r, 1)
}

// runNodeApp runs a Deployment of replicas nodeapp pods, in a namespace of
// its own that goes with the sandbox, waits until it is Available and
// returns the namespace.
func runNodeApp(t *testing.T, r *realNodeSandbox, replicas int32) string {
	t.Helper()
	created, err := r.api.Clientset.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "down-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := created.Name
	d := nodeAppDeployment("web", replicas, "down-"+randomWord(t))
	if _, err := r.api.Clientset.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Deployment/%s/web: %v", ns, err)
	}
	target := readiness.Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Kind: "Deployment", Namespace: ns, Name: "web"}
	if _, err := readiness.Wait(sandboxtest.Context(t, 2*time.Minute), r.api.Dynamic, []readiness.Target{target},
		readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 90 * time.Second}); err != nil {
		t.Fatalf("Wait(Deployment/%s/web) = %v, want Available", ns, err)
	}
	return ns
}

// nodeTraces is what a running real node has on the host.
type nodeTraces struct {
	node      sandbox.RealNodeInfo
	pids      map[int]string // component, shim and container processes
	mounts    []string
	netns     map[uint64]string // network namespace inode -> its mount
	veths     []string
	listeners []netip.AddrPort
}

// observeNode records the real node's traces and fails unless there are
// some of each kind: a check of their absence must be able to fail.
func observeNode(t *testing.T, r *realNodeSandbox) nodeTraces {
	t.Helper()
	tr := nodeTraces{node: r.node, pids: map[int]string{}, netns: map[uint64]string{}}
	for _, c := range status(t, r.Sandbox).Components {
		tr.pids[c.PID] = c.Name
		if c.Name == "kubelet" || c.Name == "containerd" {
			for _, a := range c.Listen {
				tr.listeners = append(tr.listeners, netip.MustParseAddrPort(a))
			}
		}
	}
	others, err := sandbox.ProcessesOf(r.Layout().ClusterDir())
	if err != nil {
		t.Fatal(err)
	}
	shims, err := sandbox.ProcessesOf(r.node.RuntimeDir) // their command lines name containerd's socket
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range slices.Concat(others, shims, cgroupPIDs(t, r.node.CgroupRoot)) {
		if _, ok := tr.pids[pid]; !ok {
			tr.pids[pid] = comm(pid)
		}
	}
	for _, dir := range []string{r.Layout().Dir, r.node.RuntimeDir} {
		mounts, err := sandbox.MountsUnder(dir)
		if err != nil {
			t.Fatal(err)
		}
		tr.mounts = append(tr.mounts, mounts...)
	}
	for _, m := range nsfsMounts(t, r.node.Dir) {
		var st syscall.Stat_t
		if err := syscall.Stat(m, &st); err != nil {
			t.Fatalf("stat network namespace %s: %v", m, err)
		}
		tr.netns[st.Ino] = m
	}
	tr.veths = bridgePorts(t, r.node.Bridge)
	t.Logf("real node traces before Down: %d processes, %d mounts, %d network namespaces, veths %v, listeners %v",
		len(tr.pids), len(tr.mounts), len(tr.netns), tr.veths, tr.listeners)
	if !slices.ContainsFunc(tr.mounts, func(m string) bool { return strings.HasPrefix(m, r.node.RuntimeDir+"/kubelet/pods/") }) {
		t.Fatalf("mounts %v: want the pods' volumes in the kubelet's root, in the runtime directory %s", tr.mounts, r.node.RuntimeDir)
	}
	if !slices.Contains(slices.Collect(maps.Values(tr.pids)), "nodeapp") ||
		len(tr.netns) < 2 || len(tr.veths) < 2 || len(tr.listeners) < 2 || len(cgroupDirs(r.node.CgroupRoot)) == 0 {
		t.Fatalf("traces %+v: want nodeapp processes, 2 network namespaces and veths, kubelet and containerd listeners, cgroups", tr)
	}
	return tr
}

// assertGone fails for each trace still on the host.
func (tr nodeTraces) assertGone(t *testing.T, sb *sandbox.Sandbox) {
	t.Helper()
	for pid, what := range tr.pids {
		if !gone(pid) {
			t.Errorf("%s (pid %d) still running after Down", what, pid)
		}
	}
	for _, dir := range []string{sb.Layout().ClusterDir(), tr.node.RuntimeDir} {
		if left, err := sandbox.ProcessesOf(dir); err != nil || len(left) > 0 {
			t.Errorf("processes running from %s after Down = %v, %v", dir, left, err)
		}
	}
	if pids := cgroupPIDs(t, tr.node.CgroupRoot); len(pids) > 0 {
		t.Errorf("processes in cgroup %s after Down: %v", tr.node.CgroupRoot, pids)
	}
	if dirs := cgroupDirs(tr.node.CgroupRoot); len(dirs) > 0 {
		t.Errorf("cgroups left after Down: %v", dirs)
	}
	assertNoMounts(t, sb.Layout().Dir)
	assertNoMounts(t, tr.node.RuntimeDir)
	if _, err := os.Lstat(tr.node.RuntimeDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("runtime directory %s after Down: %v; want it gone", tr.node.RuntimeDir, err)
	}
	for pid, ns := range processNetns(t) {
		if m, ok := tr.netns[ns]; ok {
			t.Errorf("pid %d (%s) still in the network namespace once mounted at %s", pid, comm(pid), m)
		}
	}
	links := ipLinks(t)
	for _, name := range append([]string{tr.node.Bridge}, tr.veths...) {
		if slices.Contains(links, name) {
			t.Errorf("`ip link` still lists %s after Down: %v", name, links)
		}
	}
	for _, l := range tr.listeners {
		if listening(t, l.Port()) {
			t.Errorf("something still listens on port %d (the real node's %s) after Down", l.Port(), l)
		}
	}
}

// assertNoMounts fails if /proc/mounts lists anything at or under dir.
func assertNoMounts(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[1] == dir || strings.HasPrefix(f[1], dir+"/")) {
			t.Errorf("still mounted after Down: %s", line)
		}
	}
}

// cgroupDirs lists root's directories in every cgroup hierarchy.
func cgroupDirs(root string) []string {
	dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", root))
	if d := filepath.Join("/sys/fs/cgroup", root); exists(d) {
		dirs = append(dirs, d) // cgroup v2 only
	}
	return dirs
}

// cgroupPIDs lists the processes anywhere under root's cgroups.
func cgroupPIDs(t *testing.T, root string) []int {
	t.Helper()
	var pids []int
	for _, dir := range cgroupDirs(root) {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != "cgroup.procs" {
				return nil
			}
			raw, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(raw)) {
				if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
					pids = append(pids, pid)
				}
			}
			return nil
		})
	}
	return pids
}

// nsfsMounts lists the network namespaces mounted under dir.
func nsfsMounts(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "nsfs" && strings.HasPrefix(f[1], dir+"/") {
			out = append(out, f[1])
		}
	}
	return out
}

// processNetns maps every process to the inode of its network namespace.
func processNetns(t *testing.T) map[int]uint64 {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]uint64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			continue
		}
		ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "net:["), "]"), 10, 64)
		if err == nil {
			out[pid] = ino
		}
	}
	return out
}

// bridgePorts lists the interfaces attached to the bridge.
func bridgePorts(t *testing.T, bridge string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("/sys/class/net", bridge, "brif"))
	if err != nil {
		t.Fatalf("ports of bridge %s: %v", bridge, err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// ipLinks lists the host's interfaces as `ip -o link` names them.
func ipLinks(t *testing.T) []string {
	t.Helper()
	out, err := osexec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Fatalf("ip -o link show: %v", err)
	}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.SplitN(sc.Text(), ": ", 3); len(f) > 1 {
			name, _, _ := strings.Cut(f[1], "@")
			names = append(names, name)
		}
	}
	return names
}

// listening reports whether a TCP socket of the host listens on port.
func listening(t *testing.T, port uint16) bool {
	t.Helper()
	for _, l := range hostListeners(t) {
		if l.Port() == port {
			return true
		}
	}
	return false
}

// hostListeners lists the listening TCP sockets of the host's network
// namespace, from /proc/net/tcp and tcp6.
func hostListeners(t *testing.T) []netip.AddrPort {
	t.Helper()
	var out []netip.AddrPort
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 3 && f[3] == "0A" {
				out = append(out, procAddr(t, f[1]))
			}
		}
	}
	return out
}

// procAddr parses /proc/net/tcp's ADDR:PORT, the address in host-order
// 32-bit words of hex.
func procAddr(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	hexAddr, hexPort, _ := strings.Cut(s, ":")
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	var b []byte
	for i := 0; i+8 <= len(hexAddr); i += 8 {
		w, err := strconv.ParseUint(hexAddr[i:i+8], 16, 32)
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	addr, ok := netip.AddrFromSlice(b)
	if !ok {
		t.Fatalf("parse %q: bad address", s)
	}
	return netip.AddrPortFrom(addr.Unmap(), uint16(port))
}

func readSettings(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range hostSettings {
		v, err := os.ReadFile(filepath.Join("/proc/sys", strings.ReplaceAll(k, ".", "/")))
		if err != nil {
			t.Fatal(err)
		}
		out[k] = strings.TrimSpace(string(v))
	}
	return out
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func comm(pid int) string {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(raw))
}
