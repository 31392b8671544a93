package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/pynenc/piceli/internal/rundir"
)

// PauseImage is the image containerd runs as every pod's sandbox
// container, built from the pause executable and imported at start.
const PauseImage = "localhost/piceli/pause:1"

// containerdNamespace is the containerd namespace the kubelet's pods and
// images live in.
const containerdNamespace = "k8s.io"

// containerdTemplate is the node's containerd configuration: every path
// under the node's directory but the sockets, in its runtime directory, no
// TCP listener but the CRI streaming server (exec, attach, port-forward) on
// 127.0.0.1, and what these hosts need.
var containerdTemplate = template.Must(template.New("containerd").Funcs(template.FuncMap{"q": strconv.Quote}).Parse(`version = 2
root = {{q .Root}}
state = {{q .State}}
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]

[grpc]
  address = {{q .Socket}}

[ttrpc]
  address = {{q .TTRPCSocket}}

# No debug socket (the default, said out loud: every socket is listed in
# realNode.sockets).
[debug]
  address = ""

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = {{q .PauseImage}}
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # Without CAP_SYS_RESOURCE (these VMs) runc otherwise fails with "can't
  # get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  # Pods' network namespaces live under state, so Down finds them.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = {{q .RuncRoot}}
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = {{q .CNIBinDir}}
    conf_dir = {{q .CNIConfDir}}
    max_conf_num = 1

[plugins."io.containerd.internal.v1.opt"]
  path = {{q .Opt}}
`))

type containerdValues struct {
	Root, State, Socket, TTRPCSocket, PauseImage, RuncRoot, CNIBinDir, CNIConfDir, Opt string
}

func renderContainerdConfig(n realNode, host hostTools) ([]byte, error) {
	var buf bytes.Buffer
	err := containerdTemplate.Execute(&buf, containerdValues{
		Root: n.containerdRoot(), State: n.containerdState(), Socket: n.containerdSocket(), TTRPCSocket: n.ttrpcSocket(),
		PauseImage: PauseImage, RuncRoot: filepath.Join(n.dir, "runc"),
		CNIBinDir: host.cniDir, CNIConfDir: n.cniConfDir(), Opt: filepath.Join(n.dir, "containerd", "opt"),
	})
	return buf.Bytes(), err
}

func writeContainerdConfig(n realNode, host hostTools) error {
	conf, err := renderContainerdConfig(n, host)
	if err != nil {
		return fmt.Errorf("render containerd config: %w", err)
	}
	return writeFileAtomic(n.containerdConfig(), conf, 0o644)
}

// checkRuntimeDir refuses, before anything starts, a runtime directory the
// node cannot use: one that is not this user's own (see rundir.Dir.Check)
// or, which only a very long user id or base could cause, too long for the
// node's sockets. The depth of the sandbox's directory does not matter.
func checkRuntimeDir(n realNode) error {
	if err := n.runtimeDir().Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrRealNodeUnavailable, err)
	}
	for _, p := range n.sockets() {
		if err := rundir.CheckSocket(p); err != nil {
			return fmt.Errorf("%w: %w, although the runtime directory %s does not depend on the sandbox's directory",
				ErrRealNodeUnavailable, err, n.run)
		}
	}
	return nil
}

// startContainerd starts containerd from the node's configuration and
// waits until its socket answers.
func (s *Sandbox) startContainerd(ctx context.Context, n realNode, host hostTools) error {
	pid, err := s.startOwn(ownComponent{Name: componentContainerd, Path: host.containerd, Args: []string{"--config", n.containerdConfig()}})
	if err != nil {
		return err
	}
	return waitFor(ctx, "containerd to answer on "+n.containerdSocket(), pid, s.layout.ownLog(componentContainerd), func() bool {
		c, err := net.DialTimeout("unix", n.containerdSocket(), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// ownLog is the log file of an own component.
func (l Layout) ownLog(name string) string { return filepath.Join(l.OwnDir(), name+".log") }

// waitFor polls ok until it holds, failing with the last lines of log when
// the process pid exits first or ctx ends.
func waitFor(ctx context.Context, what string, pid int, log string, ok func() bool) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for !ok() {
		if !alive(pid) {
			return fmt.Errorf("wait for %s: pid %d exited:\n%s\n(full log: %s)", what, pid, logTail(log), log)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w:\n%s\n(full log: %s)", what, context.Cause(ctx), logTail(log), log)
		case <-tick.C:
		}
	}
	return nil
}

func logTail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return lastLines(string(raw), 15)
}

// importPause builds the pause image from the cached executable and
// imports it into the node's containerd.
func (s *Sandbox) importPause(ctx context.Context, n realNode, host hostTools) error {
	img := ExecImage{Ref: PauseImage, Executable: s.bins.Path(BinPause)}
	r, w := io.Pipe()
	go func() { w.CloseWithError(img.WriteTarball(w)) }()
	_, err := ctrImport(ctx, host.ctr, n.containerdSocket(), r)
	r.Close()
	if err != nil {
		return fmt.Errorf("import the pause image: %w", err)
	}
	return nil
}

// unpackedRE matches the line ctr prints per image it imports.
var unpackedRE = regexp.MustCompile(`(?m)^unpacking (\S+) \(sha256:[0-9a-f]+\)\.\.\.done`)

// ctrImport streams an image archive (docker-archive or OCI archive, maybe
// compressed) into containerd's k8s.io namespace, unpacking it for the
// kubelet, and returns the names ctr reports.
func ctrImport(ctx context.Context, ctr, socket string, archive io.Reader) ([]string, error) {
	cmd := exec.CommandContext(ctx, ctr, "--address", socket, "--namespace", containerdNamespace, "images", "import", "-")
	cmd.Stdin = archive
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ctr images import: %w\n%s", err, lastLines(out.String(), 15))
	}
	var names []string
	for _, m := range unpackedRE.FindAllStringSubmatch(out.String(), -1) {
		names = append(names, m[1])
	}
	return names, nil
}

// shims lists the live containerd shims of the node: their command lines
// name its containerd socket, in its runtime directory.
func shims(n realNode) []int {
	pids, _ := ProcessesOf(n.run)
	var out []int
	for _, pid := range pids {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.HasPrefix(string(comm), "containerd-shim") {
			out = append(out, pid)
		}
	}
	return out
}

// waitShims gives the shims a few seconds to exit by themselves, as they
// do once containerd has seen their containers die.
func waitShims(ctx context.Context, n realNode) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for len(shims(n)) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// killShims kills the shims still running once containerd is gone and
// removes their sockets (they live in the fixed /run/containerd/s).
func killShims(ctx context.Context, n realNode) error {
	pids := shims(n)
	if len(pids) == 0 {
		return nil
	}
	var sockets []string
	procs := make([]process, 0, len(pids))
	for _, pid := range pids {
		sockets = append(sockets, unixSockets(pid)...)
		procs = append(procs, process{Component: "containerd-shim", PID: pid, start: startTime(pid)})
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := waitExited(ctx, procs, 5*time.Second); err != nil {
		return err
	}
	for _, s := range sockets {
		if strings.HasPrefix(s, "/run/containerd/s/") {
			_ = os.Remove(s)
		}
	}
	return nil
}

// unixSockets lists the paths of the unix sockets pid has open.
func unixSockets(pid int) []string {
	inodes, err := socketInodes(pid)
	if err != nil {
		return nil
	}
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && inodes[fields[6]] {
			out = append(out, fields[7])
		}
	}
	return out
}
