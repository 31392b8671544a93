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

// The help text, or the head of it, of each flag more than one command
// takes: a flag name means one thing in every command. A head (the entries
// ending in a space, ": " or "(default ") is completed by each command
// with what the flag is of there. TestCommandTreeContract holds every flag
// two commands share to one text, or to one of these heads.
const (
	usageAllowExec  = "let the kubeconfig's exec credential plugin or auth provider run"
	usageKubeconfig = "kubeconfig file of the cluster (never $KUBECONFIG or ~/.kube/config)"
	usageContext    = "context in that kubeconfig file (never its current-context)"
	usageOutput     = "output format: text or json"
	usageSpec       = "spec file to read"
	usageEnv        = "environment of the spec's [environments] (required when it declares any)"
	usageApp        = "app and release name"
	usageApprove    = "hash of the plan to apply, or its first 12 to 64 lower-case hex digits"
	usageAddress    = "local address to listen on: 127.0.0.1 or ::1"
	usagePort       = "local port to listen on"
	usageTarget     = "object to reach, as KIND/NAME"
	usageNamespace  = "namespace of the "
	usageOutDir     = "directory to write "
	usageDir        = "directory of the "
	usageUser       = "whose forward preferences"
	usageOnly       = "only these "
	usageDeliver    = "where the images go"
	usageGrant      = "TOOL=PATH: let Piceli run this tool"
	usageRegistry   = "registry HOST:PORT"
	usageContainerd = "containerd's socket (default "
	usageTo         = "the release's destination: "
	usageToolsDir   = "tools/sandbox directory (default: found upwards from the working directory)"
	usageImage      = "image pinned by digest: "
	usageArtifact   = "published release to use instead of the spec's composition: an OCI layout directory or oci://HOST/REPO@sha256:DIGEST (piceli publish)"
)
