package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// AgentName is the own component that runs the sandbox's storage
// provisioner and load-balancer controller, as `sandbox status` lists it.
const AgentName = "piceli-agent"

// AgentOptions configures RunAgent. Up fills it in for the agent it starts;
// RegisterFlags names the flags a command that runs the agent parses.
type AgentOptions struct {
	// Kubeconfig is the sandbox's kubeconfig file (its current context is
	// used). Required.
	Kubeconfig string
	// VolumeDir holds one directory per provisioned volume. Required and
	// absolute: volumes are hostPath volumes on this machine.
	VolumeDir string
	// NoLoadBalancer leaves LoadBalancer Services alone: they get no
	// ingress address.
	NoLoadBalancer bool
	// ReadyFile, when set, is created once the controllers watch the
	// cluster, so whoever started the agent can wait for it.
	ReadyFile string
	// EgressSocket, when set, is the unix socket on which the agent serves
	// the API server's egress proxy (see Layout.EgressSocket).
	EgressSocket string
	// EgressStats is the file where the egress proxy counts what it
	// allowed and refused; "" keeps no file.
	EgressStats string
	// NodeState is the real node's state file, whose pods' subnet the
	// egress proxy allows besides loopback; "" allows loopback only.
	NodeState string
	// APIForward, when set, makes this process the real node's API
	// forwarder and nothing else: it listens on this address (the bridge's
	// host address and APIForwardPort) and forwards every connection to
	// APIForwardTo, the API server's loopback address, then creates
	// ReadyFile. No controllers, no egress proxy.
	APIForward   string
	APIForwardTo string
}

// RegisterFlags declares opts' fields as flags of fs: --kubeconfig,
// --volume-dir, --no-load-balancer, --ready-file, --egress-socket,
// --egress-stats, --node-state, --api-forward and --api-forward-to.
func (o *AgentOptions) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "the sandbox's kubeconfig file")
	fs.StringVar(&o.VolumeDir, "volume-dir", "", "directory that holds the provisioned volumes")
	fs.BoolVar(&o.NoLoadBalancer, "no-load-balancer", false, "give LoadBalancer Services no ingress address")
	fs.StringVar(&o.ReadyFile, "ready-file", "", "file created once the controllers run")
	fs.StringVar(&o.EgressSocket, "egress-socket", "", "unix socket to serve the API server's egress proxy on")
	fs.StringVar(&o.EgressStats, "egress-stats", "", "file counting what the egress proxy allowed and refused")
	fs.StringVar(&o.NodeState, "node-state", "", "the real node's state file, whose pods' subnet the egress proxy allows")
	fs.StringVar(&o.APIForward, "api-forward", "", "run only the real node's API forwarder, listening on this bridge address:port")
	fs.StringVar(&o.APIForwardTo, "api-forward-to", "", "the API server's loopback address:port the API forwarder forwards to")
}

// args is opts as the flags RegisterFlags declares.
func (o AgentOptions) args() []string {
	args := []string{"--kubeconfig", o.Kubeconfig, "--volume-dir", o.VolumeDir}
	if o.NoLoadBalancer {
		args = append(args, "--no-load-balancer")
	}
	if o.ReadyFile != "" {
		args = append(args, "--ready-file", o.ReadyFile)
	}
	for _, f := range []struct{ flag, value string }{
		{"--egress-socket", o.EgressSocket}, {"--egress-stats", o.EgressStats}, {"--node-state", o.NodeState},
		{"--api-forward", o.APIForward}, {"--api-forward-to", o.APIForwardTo},
	} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	return args
}

// Validate refuses options RunAgent cannot run with, naming each flag in
// one line.
func (o AgentOptions) Validate() error {
	var problems []string
	if o.Kubeconfig == "" {
		problems = append(problems, "--kubeconfig: want the sandbox's kubeconfig file")
	}
	if !filepath.IsAbs(o.VolumeDir) {
		problems = append(problems, fmt.Sprintf("--volume-dir %q: want an absolute directory", o.VolumeDir))
	}
	for _, f := range []struct{ flag, value string }{
		{"--egress-socket", o.EgressSocket}, {"--egress-stats", o.EgressStats}, {"--node-state", o.NodeState},
	} {
		if f.value != "" && !filepath.IsAbs(f.value) {
			problems = append(problems, fmt.Sprintf("%s %q: want an absolute path", f.flag, f.value))
		}
	}
	if o.APIForward != "" || o.APIForwardTo != "" {
		if err := checkForward(o.APIForward, o.APIForwardTo); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// RunAgent runs the sandbox agent until ctx ends: it makes sure the default
// StorageClass exists, then provisions hostPath volumes under VolumeDir for
// claims of that class (and deletes them with their claims), and unless
// NoLoadBalancer gives every LoadBalancer Service the ingress address
// 127.0.0.1. With EgressSocket it first serves the API server's egress
// proxy there, its only socket, which dials loopback addresses and the
// real node's pods only. Otherwise it dials only the API server. It
// returns nil when ctx ends after a clean start. With APIForward it is the
// real node's API forwarder instead, and only that.
func RunAgent(ctx context.Context, opts AgentOptions) error {
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("sandbox agent: %w", err)
	}
	if opts.APIForward != "" {
		return runAPIForward(ctx, opts)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.EgressSocket != "" {
		done, err := serveEgress(ctx, opts, os.Stderr)
		if err != nil {
			return fmt.Errorf("sandbox agent: %w", err)
		}
		defer func() { cancel(); <-done }() // the proxy closes its tunnels
	}
	cs, err := agentClient(opts.Kubeconfig)
	if err != nil {
		return fmt.Errorf("sandbox agent: %w", err)
	}
	if err := os.MkdirAll(opts.VolumeDir, 0o755); err != nil {
		return fmt.Errorf("sandbox agent: volume directory: %w", err)
	}
	if err := ensureStorageClass(ctx, cs); err != nil {
		return fmt.Errorf("sandbox agent: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // before the wait: the controllers run until ctx ends
	if err := startControllers(ctx, cs, opts, &wg); err != nil {
		return fmt.Errorf("sandbox agent: %w", err)
	}
	if opts.ReadyFile != "" {
		if err := writeFileAtomic(opts.ReadyFile, []byte("ready\n"), 0o644); err != nil {
			return fmt.Errorf("sandbox agent: ready file: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}

// agentClient connects to the API server with room for bursts: a release
// of many claims or Services should not queue behind client-side limits.
func agentClient(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := RESTConfig(kubeconfig, "")
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	cfg.UserAgent = AgentName
	return kubernetes.NewForConfig(cfg)
}

// startControllers starts the informers both controllers share, waits until
// they have listed the cluster and starts the controllers' workers, which
// wg tracks.
func startControllers(ctx context.Context, cs kubernetes.Interface, opts AgentOptions, wg *sync.WaitGroup) error {
	// The provisioner library resyncs its claims and volumes this often.
	factory := informers.NewSharedInformerFactory(cs, controller.DefaultResyncPeriod)
	storage := newProvisioner(ctx, cs, factory, opts.VolumeDir, wg)
	var lb *loadBalancers
	if !opts.NoLoadBalancer {
		lb = newLoadBalancers(cs, factory)
	}
	factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			return fmt.Errorf("list %v from the API server: %w", typ, context.Cause(syncCtx))
		}
	}
	wg.Go(func() { storage.Run(ctx) })
	if lb != nil {
		wg.Go(func() { lb.run(ctx) })
	}
	return nil
}
