package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/sandbox"
)

func newSandboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "A real local control plane for trying Piceli without Docker",
		Long: "sandbox runs etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok\n" +
			"as local processes bound to 127.0.0.1 (through kwokctl), with fake nodes whose address\n" +
			"is 127.0.0.1, and an agent of its own: a default StorageClass (piceli-local) whose\n" +
			"claims it binds to directories of the sandbox, and the address 127.0.0.1 for\n" +
			"LoadBalancer Services. Pods on kwok's nodes run nothing (kwok marks them Running\n" +
			"and Ready); --real-node adds a node whose containers run.\n" +
			"Binaries are built from tools/sandbox and cached by version.",
	}
	cmd.AddCommand(newSandboxUpCmd(), newSandboxDownCmd(), newSandboxStatusCmd(), newSandboxBuildCmd(), newSandboxLoadCmd(), newSandboxAgentCmd())
	return cmd
}

// sandboxFlags are the flags every sandbox subcommand shares.
type sandboxFlags struct {
	name, dir, binDir string
}

func (f *sandboxFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.name, "name", sandbox.DefaultName, "sandbox name; sandboxes with different names run side by side")
	cmd.Flags().StringVar(&f.dir, "dir", "", usageDir+"sandbox's files (default $PICELI_SANDBOX_DIR, else .piceli-sandbox at the repository root)")
	cmd.Flags().StringVar(&f.binDir, "bin-dir", "", "binary cache (default $PICELI_CACHE_DIR/sandbox/<versions>/bin, else under the user cache directory)")
}

func (f *sandboxFlags) options(progress io.Writer) sandbox.Options {
	return sandbox.Options{Name: f.name, Dir: f.dir, BinDir: f.binDir, Progress: sandbox.ProgressTo(progress)}
}

// openSandbox opens the sandbox; a bad name or directory is refused input.
func openSandbox(opts sandbox.Options) (*sandbox.Sandbox, error) {
	sb, err := sandbox.Open(opts)
	return sb, refused(err)
}

func newSandboxUpCmd() *cobra.Command {
	var f sandboxFlags
	var toolsDir string
	var nodes int
	var realNode, noLoadBalancer bool
	var timeout time.Duration
	var output string
	cmd := &cobra.Command{
		Use:   "up [-o json]",
		Short: "Start the sandbox (idempotent) and print its kubeconfig and context",
		Long: `Start a sandbox cluster on 127.0.0.1.

Steps:
  1. build missing binaries into the cache (when tools/sandbox is found;
     10 to 15 minutes cold on 2 idle cores, far longer under load; once)
  2. start etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
     the kwok controller through kwokctl, every one bound to 127.0.0.1
  3. start the sandbox agent (this binary as a process of the sandbox): it
     binds claims of the default StorageClass piceli-local to hostPath
     volumes in the sandbox's directory and gives LoadBalancer Services the
     ingress address 127.0.0.1 (nothing listens there)
  4. write the kubeconfig file with an explicit context
  5. with --real-node: start containerd and a kubelet (as root) that run the
     pods' containers on this machine, on a private bridge
  6. create the fake nodes (address 127.0.0.1, room for 1000 pods each) and
     wait until every node is Ready

A sandbox that is already running and healthy is left as it is.

With --real-node, workloads run on the node real-node-0; fake nodes (none
unless --nodes asks) carry the taint kwok.x-k8s.io/node=fake:NoSchedule, so
only pods tolerating it land there. Images come from ` + "`piceli sandbox load`" + `
(nothing can be pulled); there is no kube-proxy and no cluster DNS.`,
		Args: sandboxNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if nodes < 0 || (nodes == 0 && !realNode) {
				return refusedf("--nodes %d: want at least 1 (or 0 with --real-node)", nodes)
			}
			opts := f.options(cmd.ErrOrStderr())
			opts.ToolsDir, opts.Nodes, opts.Timeout, opts.RealNode, opts.NoLoadBalancer = toolsDir, nodes, timeout, realNode, noLoadBalancer
			if realNode && !cmd.Flags().Changed("nodes") {
				opts.Nodes = 0
			}
			agent, err := agentCommand()
			if err != nil {
				return err
			}
			opts.Agent = agent
			sb, err := openSandbox(opts)
			if err != nil {
				return err
			}
			info, err := sb.Up(cmd.Context())
			if err != nil {
				return refusedIf(err, sandbox.ErrRealNodeUnavailable, sandbox.ErrRuntimeDirUnusable)
			}
			if output == "json" {
				return writeJSON(cmd, info.Doc())
			}
			printSandboxInfo(cmd.OutOrStdout(), info)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	f.register(cmd)
	cmd.Flags().StringVar(&toolsDir, "tools-dir", "", usageToolsDir)
	cmd.Flags().IntVar(&nodes, "nodes", 1, "number of fake nodes, each with address 127.0.0.1 and room for 1000 pods (default 0 with --real-node)")
	cmd.Flags().BoolVar(&realNode, "real-node", false, "add a real node running containers with containerd and a kubelet (root; Debian packages containerd, runc, containernetworking-plugins, iproute2)")
	cmd.Flags().BoolVar(&noLoadBalancer, "no-load-balancer", false, "give LoadBalancer Services no ingress address, like a cluster without a load-balancer controller")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "bound on starting the components and waiting for Ready nodes")
	return cmd
}

func printSandboxInfo(w io.Writer, info sandbox.Info) {
	state := "is up"
	if info.Reused {
		state = "was already running"
	}
	fmt.Fprintf(w, "sandbox %q %s\n", info.Name, state)
	fmt.Fprintf(w, "kubeconfig: %s\ncontext:    %s\nserver:     %s\nnodes:      %s\n",
		info.Kubeconfig, info.Context, info.Server, strings.Join(info.Nodes, ", "))
	if info.RealNode != "" {
		fmt.Fprintf(w, "real node:  %s (containerd %s)\n", info.RealNode, info.Containerd)
	}
	fmt.Fprintf(w, "try:        kubectl --kubeconfig %s --context %s get nodes\n", info.Kubeconfig, info.Context)
}

func newSandboxDownCmd() *cobra.Command {
	var f sandboxFlags
	var output string
	cmd := &cobra.Command{
		Use:   "down [-o json]",
		Short: "Stop the sandbox's processes and remove its kubeconfig",
		Long: `Stop the sandbox.

Steps:
  1. stop the sandbox agent, then delete the cluster through kwokctl
  2. stop any process of the sandbox still running (matched by pid and start
     time, so a reused pid is never touched) and check none is left
  3. remove its state (volumes included) and kubeconfig file`,
		Args: sandboxNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			sb, err := openSandbox(f.options(cmd.ErrOrStderr()))
			if err != nil {
				return err
			}
			stopped, err := sb.Down(cmd.Context())
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, sandbox.DownDoc{Schema: sandbox.DownSchema, Name: sb.Layout().Name, Stopped: stopped})
			}
			if stopped {
				fmt.Fprintf(cmd.OutOrStdout(), "sandbox %q stopped; no process left\n", sb.Layout().Name)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "sandbox %q was not running\n", sb.Layout().Name)
			}
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}

func newSandboxStatusCmd() *cobra.Command {
	var f sandboxFlags
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Report the sandbox's components, pids, ports, versions and nodes",
		Long: `Report the sandbox's components.

Steps:
  1. read the sandbox's processes, ports and binary versions
  2. ask its API server whether it is ready

Exits 0 when the sandbox runs and its API server is ready, 1 otherwise.`,
		Args: sandboxNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return refusedf("output format %q: want text or json", output)
			}
			sb, err := openSandbox(f.options(nil))
			if err != nil {
				return err
			}
			st, err := sb.Status(cmd.Context())
			if err != nil {
				return err
			}
			if err := printSandboxStatus(cmd.OutOrStdout(), st, output); err != nil {
				return err
			}
			if !st.Running {
				return &ExitError{Code: ExitFailed, Err: fmt.Errorf("sandbox %q is not running; start it with `piceli sandbox up --name %s`", st.Name, st.Name)}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func printSandboxStatus(w io.Writer, st sandbox.Status, output string) error {
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(w, "sandbox %q running: %t\n", st.Name, st.Running)
	if st.Running {
		fmt.Fprintf(w, "kubeconfig: %s\ncontext:    %s\nserver:     %s\n", st.Kubeconfig, st.Context, st.Server)
	}
	for _, c := range st.Components {
		fmt.Fprintf(w, "  %-24s pid %-7d running %-5t listen %-40s %s\n",
			c.Name, c.PID, c.Running, strings.Join(c.Listen, ","), c.Version)
	}
	if r := st.RealNode; r != nil {
		fmt.Fprintf(w, "  real node %s: containerd %s, bridge %s (%s), cgroup %s\n", r.Name, r.Containerd, r.Bridge, r.Subnet, r.CgroupRoot)
		if r.APIServer != "" {
			fmt.Fprintf(w, "  API server for pods: %s (TLS server name %s)\n", r.APIServer, r.APIServerName)
		}
	}
	if e := st.Egress; e != nil {
		fmt.Fprintf(w, "  egress proxy: %d allowed, %d refused (recently refused: %s)\n", e.Allowed, e.Refused, strings.Join(e.RecentRefused, ", "))
	}
	for _, n := range st.Nodes {
		fmt.Fprintf(w, "  node %-19s ready %-5t %s\n", n.Name, n.Ready, strings.Join(n.Addresses, ","))
	}
	return nil
}

func newSandboxBuildCmd() *cobra.Command {
	var toolsDir, binDir, output string
	var force bool
	cmd := &cobra.Command{
		Use:   "build [-o json]",
		Short: "Build the pinned sandbox binaries into the version-keyed cache",
		Long: `Build the sandbox's binaries.

Steps:
  1. find tools/sandbox (above the working directory, or --tools-dir)
  2. compile etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
     kubectl, kwok, kwokctl and kwok-stages from its pinned modules (10 to
     15 minutes on 2 idle cores, far longer under load), then the real node's kubelet and pause;
     binaries already cached are kept unless --rebuild
  3. print the cache directory`,
		Args: sandboxNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			opts := sandbox.BuildOptions{ToolsDir: toolsDir, BinDir: binDir, Force: force, Progress: sandbox.ProgressTo(cmd.ErrOrStderr())}
			if opts.ToolsDir == "" {
				found, ok := sandbox.FindToolsDir(".")
				if !ok {
					return refusedf("no tools/sandbox directory above the working directory; pass --tools-dir")
				}
				opts.ToolsDir = found
			}
			dir, err := sandbox.BuildBinaries(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, sandbox.BuildDoc{Schema: sandbox.BuildSchema, BinDir: dir})
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&toolsDir, "tools-dir", "", usageToolsDir)
	cmd.Flags().StringVar(&binDir, "bin-dir", "", "binary cache (default $PICELI_CACHE_DIR/sandbox/<versions>/bin, else under the user cache directory)")
	cmd.Flags().BoolVar(&force, "rebuild", false, "rebuild binaries that are already cached")
	outputFlag(cmd, &output)
	return cmd
}

// sandboxNoArgs refuses positional arguments as bad input (exit 2).
func sandboxNoArgs(cmd *cobra.Command, args []string) error {
	return refused(cobra.NoArgs(cmd, args))
}
