package sandbox_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/rundir"
	"github.com/pynenc/piceli/internal/sandbox"
)

// fixedSocketDirs are the folders where the real node's processes bind
// sockets whatever they are told (the device manager's, containerd's
// shims'): short fixed paths, the reason for one real node per machine.
var fixedSocketDirs = []string{"/var/lib/kubelet/device-plugins/", "/run/containerd/s/"}

// From a sandbox directory of 200 characters and more, every unix socket
// the sandbox's processes bind (the control plane, containerd, its shims,
// the kubelet, the pods) fits in a socket address and lies in the sandbox's
// runtime directory or a fixed folder, never under the sandbox directory;
// Down removes the runtime directory.
func TestRealNodeSocketsAreShortFromADeepDirectory(t *testing.T) {
	sb := openRealNode(t, 0)
	if n := len(sb.Layout().Dir); n < 200 {
		t.Fatalf("sandbox directory %s is %d characters; want 200 or more", sb.Layout().Dir, n)
	}
	r := upRealNode(t, sb)
	r.loadNodeApp(t)
	runNodeApp(t, r, 1)
	run := r.node.RuntimeDir
	bound := boundSockets(t, sandboxPIDs(t, r))
	t.Logf("runtime directory %s; sockets bound: %v", run, bound)
	// The kubelet binds a temporary name, then renames it: look for the
	// socket files, and check every name bound.
	for _, want := range []string{"containerd.sock", "containerd.sock.ttrpc", "kubelet/pod-resources/kubelet.sock"} {
		if fi, err := os.Lstat(filepath.Join(run, want)); err != nil || fi.Mode().Type() != fs.ModeSocket {
			t.Errorf("socket %s: %v; want containerd's and the kubelet's sockets there", filepath.Join(run, want), err)
		}
	}
	if !slices.ContainsFunc(bound, func(p string) bool { return strings.HasPrefix(p, run+"/kubelet/") }) {
		t.Errorf("no socket bound in %s/kubelet: the kubelet's pod-resources socket was not seen", run)
	}
	for _, p := range bound {
		if err := rundir.CheckSocket(p); err != nil {
			t.Error(err)
		}
		if !strings.HasPrefix(p, run+"/") && !hasAnyPrefix(p, fixedSocketDirs) {
			t.Errorf("socket %s is neither in the runtime directory %s nor in %v", p, run, fixedSocketDirs)
		}
	}

	if _, err := sb.Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(run); !os.IsNotExist(err) {
		t.Errorf("runtime directory %s after Down: %v; want it gone", run, err)
	}
}

// sandboxPIDs lists the sandbox's components, containerd's shims (their
// command lines name the runtime directory) and the pods' processes.
func sandboxPIDs(t *testing.T, r *realNodeSandbox) []int {
	t.Helper()
	var pids []int
	for _, c := range status(t, r.Sandbox).Components {
		pids = append(pids, c.PID)
	}
	for _, dir := range []string{r.Layout().ClusterDir(), r.node.RuntimeDir} {
		more, err := sandbox.ProcessesOf(dir)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, more...)
	}
	return append(pids, cgroupPIDs(t, r.node.CgroupRoot)...)
}

// boundSockets lists the paths of the unix sockets pids have open, from
// /proc/net/unix (abstract ones, which have no path, left out).
func boundSockets(t *testing.T, pids []int) []string {
	t.Helper()
	raw, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{} // inode -> path
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 8 && strings.HasPrefix(f[7], "/") {
			paths[f[6]] = f[7]
		}
	}
	var out []string
	for _, pid := range pids {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			link, _ := os.Readlink(fd)
			inode, ok := strings.CutPrefix(link, "socket:[")
			if p, found := paths[strings.TrimSuffix(inode, "]")]; ok && found && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
