package cli

import (
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pynenc/piceli/release"
)

// specFlag is the flags of every command that reads a release spec: the
// spec and, when it declares environments, the environment.
type specFlag struct{ spec, env string }

func (f *specFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.spec, "spec", "release.toml", usageSpec)
	cmd.Flags().StringVar(&f.env, "env", "", usageEnv)
}

// open opens the release for a command: notes go to stderr.
func (f *specFlag) open(cmd *cobra.Command, opts release.Options) (*release.Release, error) {
	if opts.Log == nil {
		opts.Log = cmd.ErrOrStderr()
	}
	opts.Env = f.env
	return release.Open(f.spec, opts)
}

// targetFlags are the flags of every command that reaches a cluster.
type targetFlags struct {
	specFlag
	allowExec bool
}

func (f *targetFlags) register(cmd *cobra.Command) {
	f.specFlag.register(cmd)
	cmd.Flags().BoolVar(&f.allowExec, "allow-exec", false, usageAllowExec)
}

func (f *targetFlags) open(cmd *cobra.Command, opts release.Options) (*release.Release, error) {
	opts.AllowExec = f.allowExec
	return f.specFlag.open(cmd, opts)
}

// colorful reports whether output to w should carry ANSI colors: a
// terminal, and NO_COLOR unset.
func colorful(cmd *cobra.Command) bool {
	f, ok := cmd.OutOrStdout().(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == ""
}

// The help text of each flag that many commands share: a flag name means
// one thing in every command (TestCommandTreeContract).
const (
	usageAllowExec  = "let the kubeconfig's exec credential plugin or auth provider run"
	usageKubeconfig = "kubeconfig file of the cluster (never $KUBECONFIG or ~/.kube/config)"
	usageContext    = "context in that kubeconfig file (never its current-context)"
	usageOutput     = "output format: text or json"
	usageSpec       = "spec file to read"
	usageEnv        = "environment of the spec's [environments] (required when it declares any)"
)
