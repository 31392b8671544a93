package sandbox

import (
	"net/netip"
	"os"
	"time"
)

// waitDelay bounds how long a finished kwokctl may hold its output open.
const waitDelay = 5 * time.Second

// Options selects and configures one sandbox. The zero value is valid.
type Options struct {
	// Name of the sandbox; zero means DefaultName. Sandboxes with different
	// names run side by side on different ports.
	Name string
	// Dir holds kubeconfig files and kwokctl state; zero means DefaultDir().
	Dir string
	// BinDir holds the pinned binaries; zero means DefaultBinDir().
	BinDir string
	// ToolsDir is the tools/sandbox directory used to build missing
	// binaries; zero means searching upwards from the working directory.
	// When none is found, Up fails with ErrBinariesMissing.
	ToolsDir string
	// Nodes is how many fake nodes Up creates; zero means 1, or none when
	// RealNode is set.
	Nodes int
	// RealNode adds a real node, RealNodeName: containerd, runc and a
	// kubelet running the pods' containers as processes of this machine
	// (root and Debian packages needed: see CheckRealNodeHost). Fake nodes
	// are then tainted so that only pods tolerating it land there.
	RealNode bool
	// Timeout bounds starting the components and waiting for Ready nodes;
	// zero means 2 minutes. Building binaries is not bounded by it.
	Timeout time.Duration
	// Progress receives a line per step; nil discards.
	Progress Progress
	// Agent is the command line that runs the sandbox agent (the default
	// StorageClass's provisioner and the load-balancer address keeper,
	// see RunAgent): a program that parses AgentOptions.RegisterFlags'
	// flags after these arguments and calls RunAgent. The piceli binary
	// does this as `piceli sandbox agent`. Nil means no agent: claims of
	// the default class stay Pending and LoadBalancer Services get no
	// address.
	Agent []string
	// NoLoadBalancer starts the agent without its load-balancer part, for
	// a cluster that behaves like one without a load-balancer controller.
	NoLoadBalancer bool
}

// Sandbox is one named local control plane. Methods start, stop and inspect
// it; the processes outlive the Sandbox value.
type Sandbox struct {
	layout Layout
	bins   Binaries
	opts   Options
	// subnet is the real node's pods' subnet chosen by create, whose
	// bridge address the API server's certificate carries; the zero
	// Prefix until then.
	subnet netip.Prefix
}

// Open resolves opts' defaults. It touches no process and creates no file.
func Open(opts Options) (*Sandbox, error) {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.Nodes <= 0 {
		opts.Nodes = 1
		if opts.RealNode {
			opts.Nodes = 0
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	dir, err := dirOrDefault(opts.Dir)
	if err != nil {
		return nil, err
	}
	layout, err := NewLayout(dir, opts.Name)
	if err != nil {
		return nil, err
	}
	binDir, err := binDirOrDefault(opts.BinDir)
	if err != nil {
		return nil, err
	}
	return &Sandbox{layout: layout, bins: Binaries{Dir: binDir}, opts: opts}, nil
}

func dirOrDefault(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return DefaultDir()
}

// Layout names the sandbox's files.
func (s *Sandbox) Layout() Layout { return s.layout }

// Binaries is the binary cache the sandbox runs from.
func (s *Sandbox) Binaries() Binaries { return s.bins }

// toolsDir returns the configured tools directory or finds one upwards from
// the working directory.
func (s *Sandbox) toolsDir() (string, bool) {
	if s.opts.ToolsDir != "" {
		return s.opts.ToolsDir, true
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return FindToolsDir(wd)
}
