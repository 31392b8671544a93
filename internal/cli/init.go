package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/scaffold"
	"github.com/pynenc/piceli/release"
)

func newInitCmd() *cobra.Command {
	var opts scaffold.Options
	var noTidy bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold a Piceli project",
		Long: `Create a Go module that describes an app for Piceli.

Steps:
  1. write go.mod, infra.go (a web Deployment and its Service), release.toml
     and .gitignore into DIR (default: the current directory); existing files
     are never overwritten
  2. point the module at the local Piceli source with a replace directive
     (Piceli is not served by the Go module proxy yet)
  3. release.toml keeps the release's state in the cluster (state =
     "cluster"), signed by the machines it lists in state_signers: this
     machine's state signing key is created if missing ($PICELI_STATE_KEY_FILE
     or <user config dir>/piceli/state-signing.key) and its public line
     written there (see "piceli state key")
  4. run "go mod tidy" so the project renders at once

Without --kubeconfig and --context, release.toml holds placeholders to edit.

Then: piceli render --spec DIR/release.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runInit(cmd, dir, opts, noTidy)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Name, "app", "", usageApp+" (default: the directory's name)")
	f.StringVar(&opts.Module, "module", "", "Go module path (default: example.com/APP)")
	f.StringVar(&opts.Namespace, "namespace", "", usageNamespace+"target (default: APP)")
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	f.StringVar(&opts.Context, "context", "", usageContext)
	f.StringVar(&opts.PiceliSource, "piceli-source", "", "local Piceli checkout to use (default: the one this binary was built from)")
	f.BoolVar(&noTidy, "no-tidy", false, "do not run go mod tidy")
	return cmd
}

func runInit(cmd *cobra.Command, dir string, opts scaffold.Options, noTidy bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return refused(err)
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(abs)
	}
	if opts.PiceliSource == "" {
		opts.PiceliSource = sourceDir()
	}
	if err := scaffold.Check(abs); err != nil {
		return refused(err) // before a key is made for a project that will not be
	}
	key, err := release.MachineStateKey("", "")
	if err != nil {
		return err
	}
	opts.StateSigner = key.Signer
	if err := scaffold.Write(abs, opts); err != nil {
		return refused(err)
	}
	cmd.Printf("wrote %v in %s\n", scaffold.Files, abs)
	cmd.Printf("release.toml trusts this machine to write the release's state: %s (key %s%s)\n", key.Signer, key.File, map[bool]string{true: ", created now"}[key.Created])
	cmd.Printf("go.mod reaches Piceli through: replace %s => %s\n", scaffold.PiceliModule, opts.PiceliSource)
	if !noTidy {
		cmd.Println("running go mod tidy (downloads Piceli's dependencies on first use)")
		if err := scaffold.Tidy(cmd.Context(), abs); err != nil {
			return err
		}
	}
	cmd.Printf("next: piceli render --spec %s\n", filepath.Join(dir, "release.toml"))
	return nil
}
