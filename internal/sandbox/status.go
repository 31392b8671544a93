package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// StatusSchema versions the JSON form of Status.
const StatusSchema = "piceli.sandbox-status/v1"

// Status is what `piceli sandbox status` reports about one sandbox.
type Status struct {
	Schema     string            `json:"schema"`
	Name       string            `json:"name"`
	Running    bool              `json:"running"` // every component runs and the API server is ready
	Kubeconfig string            `json:"kubeconfig,omitempty"`
	Context    string            `json:"context,omitempty"`
	Server     string            `json:"server,omitempty"`
	Components []ComponentStatus `json:"components"`
	Nodes      []NodeStatus      `json:"nodes,omitempty"`
	// RealNode is set while the sandbox has a real node (or has not torn
	// one down).
	RealNode *RealNodeInfo `json:"realNode,omitempty"`
	// Egress counts what the agent's egress proxy allowed and refused of
	// the API server's outbound connections; nil before it served any.
	Egress *EgressCounts `json:"egress,omitempty"`
}

// EgressCounts is what the egress proxy allowed and refused (see
// egress.Stats), without its own schema field.
type EgressCounts struct {
	Allowed       uint64   `json:"allowed"`
	Refused       uint64   `json:"refused"`
	RecentRefused []string `json:"recentRefused"` // oldest first, at most 20
}

// ComponentStatus is one process of a sandbox.
type ComponentStatus struct {
	Name    string   `json:"name"`
	PID     int      `json:"pid"`
	Running bool     `json:"running"`
	Listen  []string `json:"listen,omitempty"` // TCP addresses it listens on
	Version string   `json:"version,omitempty"`
}

// NodeStatus is one fake node as the API server sees it.
type NodeStatus struct {
	Name      string   `json:"name"`
	Ready     bool     `json:"ready"`
	Addresses []string `json:"addresses"`
}

// Status inspects the sandbox's processes, their listening sockets and
// versions, and, when the API server answers, its nodes. It changes nothing.
// A sandbox that was never started has no components and Running false.
func (s *Sandbox) Status(ctx context.Context) (Status, error) {
	st := Status{Schema: StatusSchema, Name: s.layout.Name, Components: []ComponentStatus{}}
	procs, err := readProcesses(s.layout.ClusterDir())
	if err != nil {
		return st, fmt.Errorf("status of sandbox %q: %w", s.layout.Name, err)
	}
	st.Components = s.components(ctx, procs)
	if real, ok, err := s.RealNode(); err == nil && ok {
		st.RealNode = &real
	}
	if e, ok, err := s.EgressStats(); err == nil && ok {
		st.Egress = &EgressCounts{Allowed: e.Allowed, Refused: e.Refused, RecentRefused: e.RecentRefused}
	}
	st.Running = len(procs) > 0 && allRunning(st.Components) && s.apiReady(ctx) == nil
	if !st.Running {
		return st, nil
	}
	st.Kubeconfig, st.Context = s.layout.Kubeconfig(), s.layout.Context()
	st.Server = s.server()
	st.Nodes, err = s.nodes(ctx)
	if err != nil {
		return st, fmt.Errorf("status of sandbox %q: %w", s.layout.Name, err)
	}
	return st, nil
}

// components describes each process, asking binaries for their versions in
// parallel.
func (s *Sandbox) components(ctx context.Context, procs []process) []ComponentStatus {
	out := make([]ComponentStatus, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		out[i] = ComponentStatus{Name: p.Component, PID: p.PID}
		if !p.running() {
			continue
		}
		out[i].Running = true
		if addrs, err := Listeners(p.PID); err == nil {
			for _, a := range addrs {
				out[i].Listen = append(out[i].Listen, a.String())
			}
		}
		wg.Go(func() { out[i].Version = binaryVersion(ctx, p.PID) })
	}
	wg.Wait()
	return out
}

func allRunning(cs []ComponentStatus) bool {
	for _, c := range cs {
		if !c.Running {
			return false
		}
	}
	return true
}

// binaryVersion runs the process's executable with --version and keeps the
// first line of its answer.
func binaryVersion(ctx context.Context, pid int) string {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// server reads the API server URL from the sandbox kubeconfig.
func (s *Sandbox) server() string {
	cfg, err := clientcmd.LoadFromFile(s.layout.Kubeconfig())
	if err != nil {
		return ""
	}
	if c := cfg.Clusters[s.layout.Context()]; c != nil {
		return c.Server
	}
	return ""
}

func (s *Sandbox) nodes(ctx context.Context) ([]NodeStatus, error) {
	cfg, err := RESTConfig(s.layout.kwokKubeconfig(), "")
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	out := make([]NodeStatus, len(list.Items))
	for i := range list.Items {
		out[i] = nodeStatus(&list.Items[i])
	}
	return out, nil
}

func nodeStatus(n *corev1.Node) NodeStatus {
	st := NodeStatus{Name: n.Name, Ready: NodeSchedulable(n)}
	for _, a := range n.Status.Addresses {
		st.Addresses = append(st.Addresses, string(a.Type)+"="+a.Address)
	}
	return st
}
