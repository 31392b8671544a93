package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Info describes a running sandbox and how to reach it.
type Info struct {
	Name       string   `json:"name"`
	Kubeconfig string   `json:"kubeconfig"` // self-contained kubeconfig file
	Context    string   `json:"context"`    // its only context, kwok-<name>
	Server     string   `json:"server"`     // API server URL, always on 127.0.0.1
	Nodes      []string `json:"nodes"`      // fake nodes, all Ready
	// RealNode is RealNodeName, Ready, when the sandbox has a real node
	// (Options.RealNode), else "".
	RealNode string `json:"realNode,omitempty"`
	// Containerd is the address of the real node's containerd ("unix://"
	// and its socket, namespace k8s.io), where its images are imported;
	// "" without a real node.
	Containerd string `json:"containerd,omitempty"`
	Reused     bool   `json:"reused"` // it was already running and healthy; nothing was started
}

// InfoSchema versions the document of an Info.
const InfoSchema = "piceli.sandbox/v1"

// InfoDoc is an Info as one versioned document ("sandbox up -o json").
type InfoDoc struct {
	Schema string `json:"schema"` // InfoSchema
	Info
}

// Doc returns i as a versioned document.
func (i Info) Doc() InfoDoc { return InfoDoc{Schema: InfoSchema, Info: i} }

// Up starts the sandbox unless it is already running and healthy, builds
// missing binaries when a tools directory is found, creates the fake nodes,
// waits until they are Ready and writes the kubeconfig file. Calling it again
// is cheap and changes nothing but the kubeconfig file.
func (s *Sandbox) Up(ctx context.Context) (Info, error) {
	if err := s.ensureBinaries(ctx); err != nil {
		return Info{}, fmt.Errorf("start sandbox %q: %w", s.layout.Name, err)
	}
	if err := s.realNodePreflight(); err != nil {
		return Info{}, fmt.Errorf("start sandbox %q: %w", s.layout.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Info{}, fmt.Errorf("start sandbox %q: %w", s.layout.Name, err)
	}
	defer unlock()
	info, err := s.up(ctx)
	if err != nil {
		return Info{}, fmt.Errorf("start sandbox %q: %w", s.layout.Name, err)
	}
	return info, nil
}

func (s *Sandbox) up(ctx context.Context) (Info, error) {
	if s.healthy(ctx) {
		stepf(s.opts.Progress, "sandbox %q is already running", s.layout.Name)
		if err := s.refuseMissingRealNode(); err != nil {
			return Info{}, err
		}
		s.noteMissingAgent()
		return s.ready(ctx, true)
	}
	if err := s.clearStale(ctx); err != nil {
		return Info{}, err
	}
	start := time.Now()
	if err := s.createSettled(ctx); err != nil {
		return Info{}, s.undo(err)
	}
	if err := s.startOwnComponents(ctx); err != nil {
		return Info{}, s.undo(err)
	}
	info, err := s.ready(ctx, false)
	if err != nil {
		return Info{}, s.undo(err)
	}
	stepf(s.opts.Progress, "sandbox %q is up in %s", s.layout.Name, time.Since(start).Round(100*time.Millisecond))
	return info, nil
}

// refuseMissingRealNode refuses to reuse a running sandbox without a real
// node when one is asked for: the real node starts with the sandbox and is
// never added to a running one.
func (s *Sandbox) refuseMissingRealNode() error {
	if !s.opts.RealNode {
		return nil
	}
	if _, ok, err := s.RealNode(); err != nil || ok {
		return err
	}
	return fmt.Errorf("%w: sandbox %q is already running without one; stop it with `piceli sandbox down` and run `piceli sandbox up --real-node` again",
		ErrRealNodeUnavailable, s.layout.Name)
}

// undo stops whatever a failed start left running, so a failed Up never
// leaves processes behind.
func (s *Sandbox) undo(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.stop(ctx); err != nil {
		return errors.Join(cause, fmt.Errorf("clean up: %w", err))
	}
	return cause
}

// ensureBinaries builds missing binaries when the tools modules can be found
// and otherwise says how to get them.
func (s *Sandbox) ensureBinaries(ctx context.Context) error {
	missing := s.bins.Missing()
	if s.opts.RealNode {
		missing = append(missing, s.bins.MissingRealNode()...)
	}
	if len(missing) == 0 {
		return nil
	}
	tools, ok := s.toolsDir()
	if !ok {
		return fmt.Errorf("%w from %s: %s\n%s", ErrBinariesMissing, s.bins.Dir,
			strings.Join(missing, ", "), BuildHint(s.bins.Dir))
	}
	stepf(s.opts.Progress, "binaries missing from %s: %s", s.bins.Dir, strings.Join(missing, ", "))
	_, err := BuildBinaries(ctx, BuildOptions{ToolsDir: tools, BinDir: s.bins.Dir, Progress: s.opts.Progress})
	return err
}

// BuildHint tells a user how to fill the binary cache binDir.
func BuildHint(binDir string) string {
	return "build them from a piceli checkout with `scripts/sandbox-bins.sh --bin-dir " + binDir +
		"`, or run `piceli sandbox up --tools-dir <checkout>/tools/sandbox`"
}

// healthy reports whether every recorded component runs and the API server
// answers /readyz.
func (s *Sandbox) healthy(ctx context.Context) bool {
	procs, err := readProcesses(s.layout.ClusterDir())
	if err != nil || len(procs) == 0 {
		return false
	}
	for _, p := range procs {
		if !p.running() {
			return false
		}
	}
	return s.apiReady(ctx) == nil
}

// apiReady asks the API server for /readyz through kwokctl's kubeconfig.
func (s *Sandbox) apiReady(ctx context.Context) error {
	cfg, err := RESTConfig(s.layout.kwokKubeconfig(), "")
	if err != nil {
		return err
	}
	cfg.Timeout = 5 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

// clearStale removes what an unhealthy earlier sandbox of the same name left.
func (s *Sandbox) clearStale(ctx context.Context) error {
	if _, err := os.Stat(s.layout.ClusterDir()); err != nil {
		return nil
	}
	stepf(s.opts.Progress, "sandbox %q is not healthy: removing it first", s.layout.Name)
	_, err := s.stop(ctx)
	return err
}

// create writes the kwokctl config, with kwok's default stages and the
// sandbox's own, and starts the components.
func (s *Sandbox) create(ctx context.Context) error {
	if err := writeFileAtomic(filepath.Join(s.layout.Dir, ".gitignore"), []byte("*\n"), 0o644); err != nil {
		return fmt.Errorf("write sandbox directory: %w", err)
	}
	defaults, err := defaultStages(ctx, s.bins)
	if err != nil {
		return err
	}
	stages, err := sandboxStages(defaults)
	if err != nil {
		return err
	}
	if err := s.writeEgressConfig(); err != nil {
		return err
	}
	sans, err := s.choosePodSubnet()
	if err != nil {
		return err
	}
	cfg, err := renderConfig(s.bins, stages, s.layout.EgressConfig(), sans...)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.layout.Config(), cfg, 0o644); err != nil {
		return fmt.Errorf("write kwokctl config: %w", err)
	}
	stepf(s.opts.Progress, "start etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on %s", LoopbackIP)
	return s.kwokctl(ctx, "create", "cluster", "--name", s.layout.Name, "--runtime", "binary",
		"--config", s.layout.Config(), "--kubeconfig", "", "--wait", "60s")
}

// choosePodSubnet chooses, for a sandbox with a real node, the pods' subnet
// before the API server's certificate is made, and returns the bridge's
// address for the certificate to carry: pods dial the API forwarder there.
func (s *Sandbox) choosePodSubnet() ([]string, error) {
	if !s.opts.RealNode {
		return nil, nil
	}
	subnet, err := chooseSubnet(s.layout.realNode().id)
	if err != nil {
		return nil, err
	}
	s.subnet = subnet
	return []string{bridgeAddress(subnet).Addr().String()}, nil
}

// ready writes the kubeconfig, creates the nodes and waits until they are
// Ready.
func (s *Sandbox) ready(ctx context.Context, reused bool) (Info, error) {
	server, err := s.writeKubeconfig()
	if err != nil {
		return Info{}, err
	}
	cfg, err := s.restConfig()
	if err != nil {
		return Info{}, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Info{}, fmt.Errorf("connect to sandbox: %w", err)
	}
	rn, err := s.realNodeOf()
	if err != nil {
		return Info{}, err
	}
	nodes, err := ensureNodes(ctx, cs, s.opts.Nodes, rn.fakeNodeTaints())
	if err != nil {
		return Info{}, err
	}
	all := append(slices.Clone(nodes), rn.nodes()...)
	stepf(s.opts.Progress, "wait for %s to be Ready", strings.Join(all, ", "))
	if err := waitNodesReady(ctx, cs, all); err != nil {
		return Info{}, rn.explain(cs, s.layout, err)
	}
	return Info{Name: s.layout.Name, Kubeconfig: s.layout.Kubeconfig(), Context: s.layout.Context(),
		Server: server, Nodes: nodes, RealNode: rn.Name, Containerd: rn.containerd(), Reused: reused}, nil
}
