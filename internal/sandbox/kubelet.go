package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// kubeletConfig is the subset of KubeletConfiguration (kubelet.config.k8s.io
// /v1beta1) the sandbox sets.
type kubeletConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// The kubelet serves logs, exec and port-forward to the API server on
	// loopback, with anonymous access and AlwaysAllow: acceptable for a
	// server no other machine can reach.
	Address        string       `json:"address"`
	Port           int          `json:"port"`
	ReadOnlyPort   int          `json:"readOnlyPort"`
	HealthzPort    int          `json:"healthzPort"` // 0: no healthz listener
	Authentication kubeletAuthn `json:"authentication"`
	Authorization  kubeletAuthz `json:"authorization"`
	// What these hosts need: cgroup v1 (hybrid), no systemd, swap allowed.
	FailCgroupV1 bool   `json:"failCgroupV1"`
	FailSwapOn   bool   `json:"failSwapOn"`
	CgroupDriver string `json:"cgroupDriver"`
	CgroupRoot   string `json:"cgroupRoot"`

	ContainerRuntimeEndpoint string `json:"containerRuntimeEndpoint"`
	PodLogsDir               string `json:"podLogsDir"`
	VolumePluginDir          string `json:"volumePluginDir"`
	// ResolvConf "" keeps the host's name servers (off the machine, out of
	// the pods' reach) from the pods, whose resolv.conf then names only
	// their own 127.0.0.1: there is no cluster DNS.
	ResolvConf string `json:"resolvConf"`
	// Never delete images (they cannot be pulled again) nor evict pods of a
	// developer's nearly full disk.
	ImageGCHighThresholdPercent int               `json:"imageGCHighThresholdPercent"`
	ImageGCLowThresholdPercent  int               `json:"imageGCLowThresholdPercent"`
	EvictionHard                map[string]string `json:"evictionHard"`
	ShutdownGracePeriod         string            `json:"shutdownGracePeriod"` // 0: no systemd inhibitor lock
}

type kubeletAuthn struct {
	Anonymous struct {
		Enabled bool `json:"enabled"`
	} `json:"anonymous"`
	Webhook struct {
		Enabled bool `json:"enabled"`
	} `json:"webhook"`
}

type kubeletAuthz struct {
	Mode string `json:"mode"`
}

func renderKubeletConfig(n realNode, st nodeState, port int) ([]byte, error) {
	cfg := kubeletConfig{
		APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration",
		Address: LoopbackIP, Port: port, Authorization: kubeletAuthz{Mode: "AlwaysAllow"},
		CgroupDriver: "cgroupfs", CgroupRoot: "/" + st.CgroupRoot,
		ContainerRuntimeEndpoint:    "unix://" + n.containerdSocket(),
		PodLogsDir:                  n.podLogsDir(),
		VolumePluginDir:             filepath.Join(n.dir, "volume-plugins"),
		ImageGCHighThresholdPercent: 100, ImageGCLowThresholdPercent: 99,
		EvictionHard:        map[string]string{"memory.available": "1%", "nodefs.available": "1%", "imagefs.available": "1%"},
		ShutdownGracePeriod: "0s",
	}
	cfg.Authentication.Anonymous.Enabled = true
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("render kubelet config: %w", err)
	}
	return out, nil
}

// freeLoopbackPort asks the kernel for a free TCP port on 127.0.0.1.
func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", LoopbackIP+":0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// shadowIPTables makes a directory, put first on the kubelet's PATH, where
// iptables and ip6tables are /bin/false: the kubelet then finds no iptables
// and adds none of its chains and rules to the host's firewall (nothing
// here needs them: there is no kube-proxy).
func shadowIPTables(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shadow iptables: %w", err)
	}
	for _, name := range []string{"iptables", "ip6tables"} {
		link := filepath.Join(dir, name)
		_ = os.Remove(link)
		if err := os.Symlink("/bin/false", link); err != nil {
			return fmt.Errorf("shadow iptables: %w", err)
		}
	}
	return nil
}

// startKubelet writes the kubelet's configuration and starts it, registered
// as RealNodeName with the sandbox's admin credentials.
func (s *Sandbox) startKubelet(ctx context.Context, n realNode, st nodeState) error {
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	conf, err := renderKubeletConfig(n, st, port)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(n.kubeletConfig(), conf, 0o644); err != nil {
		return fmt.Errorf("write kubelet config: %w", err)
	}
	shadow := filepath.Join(n.dir, "kubelet-path")
	if err := shadowIPTables(shadow); err != nil {
		return err
	}
	_, err = s.startOwn(ownComponent{
		Name: componentKubelet, Path: s.bins.Path(BinKubelet),
		Args: []string{"--config", n.kubeletConfig(), "--kubeconfig", s.layout.kwokKubeconfig(),
			"--root-dir", n.kubeletDir(), "--cert-dir", filepath.Join(n.dir, "kubelet-pki"),
			"--hostname-override", RealNodeName,
			// Refused as loopback, so the kubelet publishes no address of its
			// own; registerRealNode gives the node 127.0.0.1.
			"--node-ip", LoopbackIP},
		Env: []string{"PATH=" + shadow + string(filepath.ListSeparator) + os.Getenv("PATH")},
	})
	return err
}

// registerRealNode waits for the kubelet to register the node, then gives
// it loopback addresses: the kubelet publishes none (it refuses a loopback
// node IP) and keeps these. The API server then reaches it on 127.0.0.1.
func (s *Sandbox) registerRealNode(ctx context.Context, n realNode) error {
	cfg, err := RESTConfig(s.layout.kwokKubeconfig(), "")
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	kubelet, err := s.ownPID(componentKubelet)
	if err != nil {
		return err
	}
	err = waitFor(ctx, "the kubelet to register Node/"+RealNodeName, kubelet, s.layout.ownLog(componentKubelet), func() bool {
		_, err := cs.CoreV1().Nodes().Get(ctx, RealNodeName, metav1.GetOptions{})
		return err == nil
	})
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"addresses": []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: LoopbackIP},
		{Type: corev1.NodeHostName, Address: LoopbackIP},
	}}})
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = cs.CoreV1().Nodes().Patch(pctx, RealNodeName, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("give Node/%s loopback addresses: %w", RealNodeName, err)
	}
	return nil
}

// ownPID returns the pid of a running own component.
func (s *Sandbox) ownPID(name string) (int, error) {
	procs, err := readOwn(s.layout)
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		if p.Component == name && p.running() {
			return p.PID, nil
		}
	}
	// The log goes with the sandbox's directory: its end is in the error,
	// so a component that died on start can be diagnosed afterwards.
	return 0, fmt.Errorf("%s is not running; its log ends:\n%s", name, s.ownLogTail(name))
}
