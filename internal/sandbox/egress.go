package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/egress"
	"github.com/pynenc/piceli/internal/rundir"
)

// The API server's own outbound connections, those kube-apiserver's egress
// selector calls "cluster" (admission webhooks and aggregated APIs backed
// by a Service, kubelet connections for logs, exec and port-forward, the
// proxy subresources) and "controlplane" (URL webhooks and other webhook
// back ends), go through the agent's CONNECT proxy (package egress) on a
// unix socket in the sandbox's runtime directory. It allows loopback
// addresses and the real node's pods' subnet and refuses everything else:
// a Service's ClusterIP, which no kube-proxy serves here, would otherwise be
// dialled through the machine's default route. Etcd stays direct (it is on
// 127.0.0.1). Without an agent nothing serves the socket and every such
// connection fails.

// EgressConfig is the EgressSelectorConfiguration kube-apiserver reads.
func (l Layout) EgressConfig() string { return filepath.Join(l.Workdir(), l.Name+".egress.yaml") }

// EgressSocket is the unix socket of the agent's egress proxy: in the
// sandbox's runtime directory, short whatever the depth of its directory.
func (l Layout) EgressSocket() string {
	return filepath.Join(l.runtimeDir().Path, "egress.sock")
}

// EgressStatsFile is where the agent's egress proxy counts what it allowed
// and refused (egress.Stats).
func (l Layout) EgressStatsFile() string { return filepath.Join(l.OwnDir(), "egress.json") }

// ErrRuntimeDirUnusable is wrapped by Up when the sandbox's runtime
// directory (its sockets) cannot be made safely: a refusal, not a fault.
var ErrRuntimeDirUnusable = rundir.ErrUnusable

// runtimeDir is the sandbox's runtime directory (see rundir), shared by the
// egress socket and the real node's sockets.
func (l Layout) runtimeDir() rundir.Dir { return rundir.For(l.ClusterDir()) }

// egressSelections are the egress selector's names sent through the proxy.
var egressSelections = []string{"cluster", "controlplane"}

type egressSelectorConfig struct {
	APIVersion       string            `json:"apiVersion"`
	Kind             string            `json:"kind"`
	EgressSelections []egressSelection `json:"egressSelections"`
}

type egressSelection struct {
	Name       string `json:"name"`
	Connection struct {
		ProxyProtocol string `json:"proxyProtocol"`
		Transport     struct {
			UDS struct {
				UDSName string `json:"udsName"`
			} `json:"uds"`
		} `json:"transport"`
	} `json:"connection"`
}

// renderEgressConfig is the EgressSelectorConfiguration sending every
// egressSelections name through an HTTP CONNECT proxy on socket.
func renderEgressConfig(socket string) ([]byte, error) {
	cfg := egressSelectorConfig{APIVersion: "apiserver.k8s.io/v1beta1", Kind: "EgressSelectorConfiguration"}
	for _, name := range egressSelections {
		var sel egressSelection
		sel.Name = name
		sel.Connection.ProxyProtocol = "HTTPConnect"
		sel.Connection.Transport.UDS.UDSName = socket
		cfg.EgressSelections = append(cfg.EgressSelections, sel)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("render egress selector config: %w", err)
	}
	return out, nil
}

// writeEgressConfig creates the runtime directory for the proxy's socket
// and writes the egress selector configuration naming it.
func (s *Sandbox) writeEgressConfig() error {
	sock := s.layout.EgressSocket()
	if err := rundir.CheckSocket(sock); err != nil {
		return fmt.Errorf("egress proxy: %w", err)
	}
	if err := s.layout.runtimeDir().Create(); err != nil {
		return fmt.Errorf("egress proxy: %w", err)
	}
	cfg, err := renderEgressConfig(sock)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.layout.EgressConfig(), cfg, 0o644); err != nil {
		return fmt.Errorf("write egress selector config: %w", err)
	}
	return nil
}

// EgressStats returns what the sandbox's egress proxy has allowed and
// refused; ok is false before it has served anything.
func (s *Sandbox) EgressStats() (egress.Stats, bool, error) {
	return egress.ReadStats(s.layout.EgressStatsFile())
}

// egressAllows is the proxy's policy: loopback addresses, and addresses in
// the pods' subnet of the real node whose state file is nodeState (read at
// each call, since the node starts after the agent; "" for none).
func egressAllows(nodeState string) func(netip.Addr) bool {
	return func(a netip.Addr) bool {
		if a.IsLoopback() {
			return true
		}
		if nodeState == "" {
			return false
		}
		subnet, ok := podSubnet(nodeState)
		return ok && subnet.Contains(a)
	}
}

// podSubnet reads the pods' subnet from a real node's state file.
func podSubnet(path string) (netip.Prefix, bool) {
	f, err := os.Open(path)
	if err != nil {
		return netip.Prefix{}, false
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return netip.Prefix{}, false
	}
	var st nodeState
	if err := json.Unmarshal(raw, &st); err != nil {
		return netip.Prefix{}, false
	}
	p, err := netip.ParsePrefix(st.Subnet)
	if err != nil || !p.Addr().Is4() || p.Bits() < subnetPool.Bits() || !subnetPool.Contains(p.Addr()) {
		return netip.Prefix{}, false
	}
	return p.Masked(), true
}

// serveEgress listens on opts.EgressSocket (replacing a stale socket file
// left by a killed agent) and serves the egress proxy until ctx ends, its
// log lines going to log. It returns once the socket listens.
func serveEgress(ctx context.Context, opts AgentOptions, log io.Writer) (<-chan error, error) {
	if err := removeStaleSocket(opts.EgressSocket); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", opts.EgressSocket)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	if err := os.Chmod(opts.EgressSocket, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &egress.Proxy{Allow: egressAllows(opts.NodeState), Log: log, StatsFile: opts.EgressStats}
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	return done, nil
}

// removeStaleSocket removes path if it is a socket; anything else there is
// an error.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("egress proxy: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("egress proxy: %s exists and is not a socket", path)
	}
	return os.Remove(path)
}
