package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

func newRegistryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Install, inspect or remove an optional in-cluster registry, through the engine",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newRegistryInstallCmd(false), newRegistryInstallCmd(true), newRegistryStatusCmd())
	return cmd
}

// registryFlags are the flags of registry install and uninstall.
type registryFlags struct {
	opts artifact.RegistryReleaseOptions
	run  applyFlags
}

func (f *registryFlags) register(cmd *cobra.Command, uninstall bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.Dir, "dir", ".piceli-registry", usageDir+"registry's files: its release spec, manifests and state")
	fl.StringVar(&f.opts.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	fl.StringVar(&f.opts.Context, "context", "", usageContext)
	fl.StringVar(&f.opts.Namespace, "namespace", "", usageNamespace+"registry")
	if !uninstall {
		fl.StringVar(&f.opts.Storage, "storage", "", "size of the registry's claim (default 10Gi)")
		fl.StringVar(&f.opts.Image, "image", "", usageImage+"a registry:2-compatible one")
	}
	fl.StringVar(&f.run.approve, "approve", "", usageApprove)
	fl.BoolVar(&f.run.allowExec, "allow-exec", false, usageAllowExec)
	fl.StringVarP(&f.run.output, "output", "o", "text", usageOutput)
}

func newRegistryInstallCmd(uninstall bool) *cobra.Command {
	var f registryFlags
	f.opts.Uninstall = uninstall
	cmd := &cobra.Command{
		Use:   "install --kubeconfig F --context C --namespace N --image REF@sha256:... [--approve HASH]",
		Short: "Install an in-cluster registry (Deployment, Service, claim) as a release",
		Long: `Install a registry:2-compatible registry in the cluster, as a release.

Steps:
  1. write its release (release.toml, manifests/registry.yaml: a Deployment of
     the pinned image, a Service on port 5000 and a claim) into --dir
  2. without --approve: plan it, store the plan, print it and its hash, exit 3
  3. with --approve: apply exactly that plan through the engine (journal,
     server-side apply, readiness), as "piceli release apply" does

Push to it with "piceli artifacts import LAYOUT --deliver registry --via-forward
service/registry:5000 --kubeconfig F --context C --namespace N".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.run.approve != "" {
				if err := release.CheckApproval(f.run.approve); err != nil {
					return err // before --dir is written
				}
			}
			spec, err := artifact.RegistryRelease(f.opts)
			if err != nil {
				return err
			}
			f.run.spec = spec
			if f.run.approve == "" {
				return planFirst(cmd, f.run, func(r *release.Release, opts release.PlanOptions) (*plan.Plan, int, error) {
					p, err := r.Plan(cmd.Context(), opts)
					return p, 0, err
				})
			}
			return runRelease(cmd, f.run, func(r *release.Release, opts release.RunOptions) (*release.Result, error) {
				return r.Apply(cmd.Context(), f.run.approve, opts)
			})
		},
	}
	if uninstall {
		cmd.Use = "uninstall --kubeconfig F --context C --namespace N [--approve HASH]"
		cmd.Short = "Remove the in-cluster registry's Deployment and Service, keeping its claim"
		cmd.Long = `Remove the in-cluster registry through the engine.

Steps:
  1. rewrite its release in --dir to declare the claim alone, as installed
     (prune on)
  2. without --approve: plan the deletion of the Deployment and the Service,
     print it and its hash, exit 3
  3. with --approve: apply exactly that plan

The claim, and the images in it, are kept: the engine never prunes a claim
that is not annotated piceli.dev/prune: "allow".`
	}
	f.register(cmd, uninstall)
	return cmd
}

func newRegistryStatusCmd() *cobra.Command {
	var dir, output string
	cmd := &cobra.Command{
		Use:   "status [--dir .piceli-registry] [-o json]",
		Short: "Show the in-cluster registry release's latest run",
		Long: `Show how the in-cluster registry's release stands.

Steps:
  1. read the release that "piceli registry install" wrote into --dir
  2. replay its latest run's journal (read-only) and print its status, as
     "piceli release run" does`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			f := specFlag{spec: filepath.Join(dir, "release.toml")}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			rep, err := r.Run(cmd.Context(), "")
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, rep)
			}
			printRunReport(cmd, rep, f)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".piceli-registry", usageDir+"registry's files: its release spec, manifests and state")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
