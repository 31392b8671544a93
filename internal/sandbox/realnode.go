package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/rundir"
)

// RealNodeName is the node a sandbox started with Options.RealNode
// registers: a kubelet with containerd and runc that run real containers.
const RealNodeName = "real-node-0"

// Names of the real node's processes among the sandbox's components.
const (
	componentContainerd = "containerd"
	componentKubelet    = "kubelet"
)

// realNode names the files and host objects of one sandbox's real node.
// Everything is derived from the cluster directory, so Down finds it again
// without asking the processes.
type realNode struct {
	clusterDir string
	dir        string // what the node writes, under the cluster directory: logs, images, configuration
	// run is the node's runtime directory (see rundir): a short path of its
	// own, whatever the depth of the cluster directory, for the unix
	// sockets containerd and the kubelet create (the kubelet's whole root
	// directory, whose sockets cannot be moved one by one).
	run string
	id  string // 8 hex digits naming the node's host objects
}

func (l Layout) realNode() realNode {
	return realNode{clusterDir: l.ClusterDir(), dir: filepath.Join(l.OwnDir(), "node"),
		run: rundir.For(l.ClusterDir()).Path, id: rundir.Name(l.ClusterDir())}
}

// as is n as the node recorded in st was started: with st's runtime
// directory, or, for a node started before runtime directories, with its
// sockets in its own directory.
func (n realNode) as(st nodeState) realNode {
	n.run = st.RuntimeDir
	if n.run == "" {
		n.run = n.dir
	}
	return n
}

// runtimeDir is the node's runtime directory, made for its cluster
// directory.
func (n realNode) runtimeDir() rundir.Dir { return rundir.Dir{Path: n.run, Key: n.clusterDir} }

func (n realNode) stateFile() string        { return filepath.Join(n.dir, "state.json") }
func (n realNode) containerdSocket() string { return filepath.Join(n.run, "containerd.sock") }
func (n realNode) ttrpcSocket() string      { return filepath.Join(n.run, "containerd.sock.ttrpc") }
func (n realNode) containerdConfig() string { return filepath.Join(n.dir, "containerd.toml") }
func (n realNode) containerdRoot() string   { return filepath.Join(n.dir, "containerd", "root") }
func (n realNode) containerdState() string  { return filepath.Join(n.dir, "containerd", "state") }
func (n realNode) cniConfDir() string       { return filepath.Join(n.dir, "cni", "net.d") }
func (n realNode) cniDataDir() string       { return filepath.Join(n.dir, "cni", "ipam") }
func (n realNode) kubeletDir() string       { return filepath.Join(n.run, "kubelet") }
func (n realNode) kubeletConfig() string    { return filepath.Join(n.dir, "kubelet.yaml") }
func (n realNode) podLogsDir() string       { return filepath.Join(n.dir, "pod-logs") }

// sockets lists every unix socket the node's processes create at a path
// the sandbox chooses: containerd's gRPC and ttrpc sockets (its debug
// socket is off), and what the kubelet creates in its root directory: the
// pod-resources API and, when its alpha feature gate is on, the pods API
// (plugins_registry and plugins hold only the sockets of plugins, of which
// the sandbox runs none). The others are at fixed paths (see fixedSockets).
func (n realNode) sockets() []string {
	return []string{n.containerdSocket(), n.ttrpcSocket(),
		filepath.Join(n.kubeletDir(), "pod-resources", "kubelet.sock"),
		filepath.Join(n.kubeletDir(), "pods-api", "pods-api.sock")}
}

// fixedSockets are the folders where the node's processes create unix
// sockets whatever they are told: the device manager's, and containerd's
// shims' (named by a hash). Their paths are short and fixed; they are why a
// machine has one real node (see machineClaim).
var fixedSockets = []string{"/var/lib/kubelet/device-plugins/", "/run/containerd/s/"}

// bridge is the Linux bridge the pods are attached to (at most 15 bytes).
func (n realNode) bridge() string { return "pcl" + n.id }

// network is the CNI network name; CNI's caches name their files after it.
func (n realNode) network() string { return "piceli-" + n.id }

// cgroupRoot is the cgroup, in every hierarchy, that holds the pods.
func (n realNode) cgroupRoot() string { return "piceli-" + n.id }

// nodeState is what a real node changed on the host, written before the
// change so that Down can undo it after any crash.
type nodeState struct {
	ClusterDir string `json:"clusterDir"`
	Bridge     string `json:"bridge"`
	Subnet     string `json:"subnet"` // the pods' /24
	CgroupRoot string `json:"cgroupRoot"`
	// Sysctls are the host values, before the kubelet set its own, of the
	// kernel settings it changes (see kubeletSysctls).
	Sysctls map[string]string `json:"sysctls"`
	// CreatedDirs are host directories outside the sandbox that did not
	// exist before the node started; Down removes those left empty.
	CreatedDirs []string `json:"createdDirs"`
	// RuntimeDir holds the node's sockets and the kubelet's root directory
	// (see realNode.run); Down removes it. "" for a node started before
	// runtime directories, whose sockets are in its own directory.
	RuntimeDir string `json:"runtimeDir,omitempty"`
	// APIForward is where the API forwarder listens for the pods (the
	// bridge's host address and APIForwardPort); "" when none was started.
	APIForward string `json:"apiForward,omitempty"`
}

// readNodeState returns the sandbox's real-node state, or false when it has
// none (it was started without a real node, or the node is torn down).
func readNodeState(n realNode) (nodeState, bool, error) {
	raw, err := os.ReadFile(n.stateFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nodeState{}, false, nil
	}
	if err != nil {
		return nodeState{}, false, fmt.Errorf("read real node state: %w", err)
	}
	var st nodeState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nodeState{}, false, fmt.Errorf("read real node state %s: %w", n.stateFile(), err)
	}
	return st, true, nil
}

func writeNodeState(n realNode, st nodeState) error {
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return fmt.Errorf("write real node state: %w", err)
	}
	if err := writeFileAtomic(n.stateFile(), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write real node state: %w", err)
	}
	return nil
}

// realNodePreflight checks, when the sandbox is to have a real node and
// before anything starts, that this host can run it and that the machine's
// real node is free for it (see startRealNode).
func (s *Sandbox) realNodePreflight() error {
	if !s.opts.RealNode {
		return nil
	}
	n := s.layout.realNode()
	if _, err := checkRealNodeHost(s.bins); err != nil {
		return err
	}
	if err := checkRuntimeDir(n); err != nil {
		return err
	}
	return claimMachine(n)
}

// startRealNode is the real node's own-component starter: it checks the
// host, claims the machine's single real node, records what it will
// change, then sets up cgroups, the bridge, containerd (with the pause
// image) and the kubelet, and waits until the node is registered with
// loopback addresses. Up then waits for it to be Ready.
func (s *Sandbox) startRealNode(ctx context.Context) error {
	n := s.layout.realNode()
	host, err := checkRealNodeHost(s.bins)
	if err != nil {
		return err
	}
	if err := checkRuntimeDir(n); err != nil {
		return err
	}
	if err := claimMachine(n); err != nil {
		return err
	}
	st, err := s.recordHost(n)
	if err != nil {
		return err
	}
	stepf(s.opts.Progress, "start the real node %s: containerd, kubelet, pods on bridge %s (%s)", RealNodeName, st.Bridge, st.Subnet)
	start := time.Now()
	if err := setUpHost(n, st, host); err != nil {
		return err
	}
	if err := s.startContainerd(ctx, n, host); err != nil {
		return err
	}
	if err := s.importPause(ctx, n, host); err != nil {
		return err
	}
	if err := s.startKubelet(ctx, n, st); err != nil {
		return err
	}
	if err := s.registerRealNode(ctx, n); err != nil {
		return err
	}
	if err := s.startAPIForwarder(ctx, n, st); err != nil {
		return err
	}
	stepf(s.opts.Progress, "real node %s registered in %s", RealNodeName, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// recordHost takes the pods' subnet create chose (or chooses one) and
// writes the node state, with the host values it will change, before
// anything is changed.
func (s *Sandbox) recordHost(n realNode) (nodeState, error) {
	subnet := s.subnet
	if !subnet.IsValid() {
		var err error
		if subnet, err = chooseSubnet(n.id); err != nil {
			return nodeState{}, err
		}
	}
	sysctls, err := readSysctls(kubeletSysctls)
	if err != nil {
		return nodeState{}, err
	}
	st := nodeState{ClusterDir: n.clusterDir, Bridge: n.bridge(), Subnet: subnet.String(),
		CgroupRoot: n.cgroupRoot(), Sysctls: sysctls, CreatedDirs: missingDirs(hostDirs), RuntimeDir: n.run}
	return st, writeNodeState(n, st)
}

// setUpHost creates the node's runtime directory, its cgroups, its bridge
// and its CNI and containerd configuration.
func setUpHost(n realNode, st nodeState, host hostTools) error {
	if err := n.runtimeDir().Create(); err != nil {
		return fmt.Errorf("%w: %w", ErrRealNodeUnavailable, err)
	}
	if err := createCgroups(st.CgroupRoot); err != nil {
		return err
	}
	if err := createBridge(st.Bridge, st.Subnet); err != nil {
		return err
	}
	if err := writeCNIConfig(n, st); err != nil {
		return err
	}
	return writeContainerdConfig(n, host)
}

// stopRealNode tears the real node down, if the sandbox has one: the
// kubelet, then the pods' processes (while containerd still runs, so its
// shims exit cleanly), containerd and any shim left, every mount under the
// node's directory and its runtime directory, the bridge, the cgroups, the
// kernel settings the kubelet changed, the host files and directories it
// left, and the runtime directory. It fails, and the caller must remove
// nothing, while any mount is left: removing the directory would reach
// through it.
func (s *Sandbox) stopRealNode(ctx context.Context) error {
	n := s.layout.realNode()
	st, ok, err := readNodeState(n)
	if err != nil || !ok {
		return err
	}
	n = n.as(st)
	stepf(s.opts.Progress, "stop the real node %s", RealNodeName)
	if err := s.stopOwnNamed(ctx, APIForwarderName); err != nil {
		return err
	}
	if err := s.stopOwnNamed(ctx, componentKubelet); err != nil {
		return err
	}
	if err := killCgroups(ctx, st.CgroupRoot); err != nil {
		return err
	}
	waitShims(ctx, n)
	if err := s.stopOwnNamed(ctx, componentContainerd); err != nil {
		return err
	}
	if err := killShims(ctx, n); err != nil {
		return err
	}
	if err := unmountUnder(n.dir); err != nil {
		return err
	}
	if err := unmountUnder(n.run); err != nil {
		return err
	}
	if err := tearDownHost(n, st); err != nil {
		return err
	}
	if st.RuntimeDir != "" {
		if err := n.runtimeDir().Remove(); err != nil {
			return err
		}
	}
	if err := os.Remove(n.stateFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return releaseMachine(n)
}

// tearDownHost undoes setUpHost and what the node's processes left on the
// host, once they are gone and nothing is mounted.
func tearDownHost(n realNode, st nodeState) error {
	return errors.Join(
		deleteBridge(st.Bridge),
		removeCgroups(st.CgroupRoot),
		writeSysctls(st.Sysctls),
		removeHostLeftovers(n, st),
	)
}

// stopOwnNamed stops one own component, if it runs: SIGTERM, then SIGKILL
// after stopGrace.
func (s *Sandbox) stopOwnNamed(ctx context.Context, name string) error {
	procs, err := readOwn(s.layout)
	if err != nil {
		return err
	}
	for _, p := range procs {
		if p.Component == name && p.running() {
			_ = syscall.Kill(p.PID, syscall.SIGTERM)
			if err := waitExited(ctx, []process{p}, stopGrace); err != nil {
				return fmt.Errorf("stop %s: %w", name, err)
			}
		}
	}
	return nil
}

// FakeNodeTaint is the taint fake nodes carry in a sandbox with a real
// node: only pods that tolerate it are scheduled there, every other pod
// runs on the real node.
var FakeNodeTaint = corev1.Taint{Key: KwokNodeAnnotation, Value: "fake", Effect: corev1.TaintEffectNoSchedule}

// RealNodeInfo describes a sandbox's real node and what it made on the host.
type RealNodeInfo struct {
	Name       string `json:"name"`       // RealNodeName
	Containerd string `json:"containerd"` // containerd's socket; images go to namespace k8s.io
	Bridge     string `json:"bridge"`     // the pods' bridge
	Subnet     string `json:"subnet"`     // the pods' addresses; no route beyond it
	CgroupRoot string `json:"cgroupRoot"` // cgroup, in every hierarchy, of the pods
	Dir        string `json:"dir"`        // where its processes keep state: images, containers, logs, pods' network namespaces
	// RuntimeDir is the node's short runtime directory, whatever the depth
	// of Dir: its unix sockets and the kubelet's root directory (pods'
	// volumes). Down removes it. It is Dir for a node started by an older
	// piceli.
	RuntimeDir string `json:"runtimeDir"`
	// APIServer is the API server's URL for the node's pods,
	// https://BRIDGE-ADDRESS:APIForwardPort, served by the API forwarder
	// (see APIServerEnv); "" when the node has none.
	APIServer string `json:"apiServer,omitempty"`
	// APIServerName is a TLS server name the API server's certificate
	// carries (APIServerName), for pods' clients that dial APIServer by
	// another name; "" when the node has no forwarder.
	APIServerName string `json:"apiServerName,omitempty"`
}

// RealNode describes the sandbox's real node; false when it has none.
func (s *Sandbox) RealNode() (RealNodeInfo, bool, error) {
	n := s.layout.realNode()
	st, ok, err := readNodeState(n)
	if err != nil || !ok {
		return RealNodeInfo{}, false, err
	}
	n = n.as(st)
	api, name := apiServerForPods(st)
	return RealNodeInfo{Name: RealNodeName, Containerd: n.containerdSocket(), Bridge: st.Bridge,
		Subnet: st.Subnet, CgroupRoot: st.CgroupRoot, Dir: n.dir, RuntimeDir: n.run,
		APIServer: api, APIServerName: name}, true, nil
}

// realNodeOf is RealNode for Up, which was asked for one or not: a running
// sandbox without one cannot gain one.
func (s *Sandbox) realNodeOf() (RealNodeInfo, error) {
	info, ok, err := s.RealNode()
	if err == nil && !ok && s.opts.RealNode {
		err = fmt.Errorf("sandbox %q runs without a real node: stop it with `piceli sandbox down --name %[1]s` and start it again with --real-node", s.layout.Name)
	}
	return info, err
}

func (r RealNodeInfo) fakeNodeTaints() []corev1.Taint {
	if r.Name == "" {
		return nil
	}
	return []corev1.Taint{FakeNodeTaint}
}

func (r RealNodeInfo) nodes() []string {
	if r.Name == "" {
		return nil
	}
	return []string{r.Name}
}

func (r RealNodeInfo) containerd() string {
	if r.Name == "" {
		return ""
	}
	return "unix://" + r.Containerd
}

// explain adds to err, from a wait for the nodes to be Ready, why the real
// node is not: its Ready condition and the end of the kubelet's log.
func (r RealNodeInfo) explain(cs kubernetes.Interface, l Layout, err error) error {
	if r.Name == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cond := "not registered"
	if node, gerr := cs.CoreV1().Nodes().Get(ctx, r.Name, metav1.GetOptions{}); gerr == nil {
		cond = "no Ready condition"
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				cond = fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
			}
		}
	}
	log := l.ownLog(componentKubelet)
	return fmt.Errorf("%w\nNode/%s: %s\nkubelet log (%s) ends:\n%s", err, r.Name, cond, log, logTail(log))
}
