package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/controller/install"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

func newControllerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "The controller in the cluster: install it, approve and watch the Releases it delivers",
		Long: `The Piceli controller delivers Releases (piceli.dev/v1alpha1) from an OCI
artifact or a Git repository: it plans each new revision with the same engine
as "piceli release plan", shows the plan in the Release's status and applies
exactly that plan once its hash is approved (or the Release's policy approves
it). Installing it is itself a release approved by hash. See
docs/controller.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newControllerInstallCmd(false), newControllerInstallCmd(true), newControllerApproveCmd(), newControllerSyncCmd(), newControllerStatusCmd(), newControllerRollbackCmd(), newControllerUnpinCmd(), newControllerStopCmd())
	return cmd
}

// usageAPIServer and usageAPIServerName are the help of the API server
// override of controller install.
const (
	usageAPIServer     = "where the controller's pods reach the API server instead of its Service, https://IP:PORT (for nodes whose pods cannot reach the ClusterIP)"
	usageAPIServerName = "name the API server's certificate is checked against at --api-server"
)

// controllerFlags are the flags of controller install and uninstall.
type controllerFlags struct {
	opts install.Options
	run  applyFlags
}

func (f *controllerFlags) register(cmd *cobra.Command, uninstall bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.Kubeconfig, "kubeconfig", "", usageKubeconfig)
	fl.StringVar(&f.opts.Context, "context", "", usageContext)
	fl.StringVar(&f.opts.Namespace, "namespace", install.DefaultNamespace, usageNamespace+"controller")
	if !uninstall {
		fl.StringVar(&f.opts.Image, "image", "", usageImage+"the piceli-controller image (piceli artifacts build)")
		fl.StringVar(&f.opts.APIServer, "api-server", "", usageAPIServer)
		fl.StringVar(&f.opts.APIServerName, "api-server-name", "", usageAPIServerName)
	}
	fl.StringVar(&f.opts.Dir, "dir", "", usageDir+"controller's release: its state signing key, spec, artifact and state (default: one per context and namespace in the user config directory)")
	fl.StringVar(&f.run.approve, "approve", "", usageApprove)
	fl.BoolVar(&f.run.allowExec, "allow-exec", false, usageAllowExec)
	fl.StringVarP(&f.run.output, "output", "o", "text", usageOutput)
}

func newControllerInstallCmd(uninstall bool) *cobra.Command {
	var f controllerFlags
	cmd := &cobra.Command{
		Use:   "install --kubeconfig F --context C --image REF@sha256:... [--approve HASH]",
		Short: "Install the Piceli controller as a release approved by hash",
		Long: `Install the Piceli controller in the cluster, as a release of its own.

Steps:
  1. create the controller's state signing key on this machine, once per
     context and namespace (in --dir), and print its signer line: list it in
     state_signers of every release the controller applies
  2. write the controller's release into --dir: an OCI layout of its objects
     (namespace, the Release CRD, ServiceAccount, its ClusterRole and Role
     with their bindings, the piceli-deployer ClusterRole, the state key's
     Secret declared by its file, a 2-replica Deployment with leader
     election and a metrics Service) and a release.toml
  3. without --approve: plan it, store the plan, print it and its hash, exit 3
  4. with --approve: apply exactly that plan through the engine (journal,
     server-side apply, readiness), as "piceli release apply" does

The controller writes only in namespaces whose owner binds its ServiceAccount
to the piceli-deployer ClusterRole with a RoleBinding; install creates no
such binding (see docs/controller-install.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runControllerRelease(cmd, &f, uninstall)
		},
	}
	if uninstall {
		cmd.Use = "uninstall --kubeconfig F --context C [--approve HASH]"
		cmd.Short = "Remove the Piceli controller, never what its Releases applied"
		cmd.Long = `Remove the Piceli controller through the engine.

Steps:
  1. rewrite its release in --dir (the directory of the install) to declare
     only the Release CRD, prune on
  2. without --approve: plan the deletion of every other object the install
     created (Deployment, Service, roles, bindings, ServiceAccount, the state
     key's Secret), print it and its hash, exit 3
  3. with --approve: apply exactly that plan

Kept: the Release CRD and every Release (so nothing people wrote is lost),
the namespace (the engine never prunes a release's own namespace), every
object a Release applied and the RoleBindings namespace owners created. The
state signing key stays on this machine for a later install.`
	}
	f.register(cmd, uninstall)
	return cmd
}

// runControllerRelease prepares the controller's release, then plans it
// (exit 3, approval required) or applies the approved plan.
func runControllerRelease(cmd *cobra.Command, f *controllerFlags, uninstall bool) error {
	if f.run.approve != "" {
		if err := release.CheckApproval(f.run.approve); err != nil {
			return err // before anything is written
		}
	}
	prepare := install.Prepare
	if uninstall {
		prepare = install.PrepareUninstall
	}
	p, err := prepare(f.opts)
	if err != nil {
		return err
	}
	if p.Signer != "" {
		made := "kept"
		if p.KeyCreated {
			made = "created"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "controller state signing key: %s (%s)\nits signer line, for state_signers of every release the controller applies:\n  %s\n", p.KeyFile, made, p.Signer)
	}
	f.run.spec, f.run.artifact = p.Spec, p.Artifact
	if f.run.approve != "" {
		return runRelease(cmd, f.run, func(r *release.Release, opts release.RunOptions) (*release.Result, error) {
			return r.Apply(cmd.Context(), f.run.approve, opts)
		})
	}
	r, err := f.run.open(cmd, release.Options{})
	if err != nil {
		return err
	}
	pl, err := r.Plan(cmd.Context(), release.PlanOptions{})
	if err != nil {
		return err
	}
	if !uninstall {
		if err := install.CheckPlan(pl); err != nil {
			return err
		}
	}
	next := controllerCommand(cmd, f, pl)
	if err := printPlan(cmd, f.run.output, pl, next, false); err != nil {
		return err
	}
	return &ExitError{Code: ExitApproval, Err: fmt.Errorf("approval required: nothing was applied; run: %s", next)}
}

// controllerCommand is the command that applies pl: this one, with its
// flags as given and --approve.
func controllerCommand(cmd *cobra.Command, f *controllerFlags, pl *plan.Plan) string {
	line := "piceli " + cmd.Parent().Name() + " " + cmd.Name()
	for _, name := range []string{"kubeconfig", "context", "namespace", "image", "api-server", "api-server-name", "dir"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			line += " --" + name + " " + shellWord(fl.Value.String())
		}
	}
	return line + " --approve " + plan.ShortHash(pl.Hash)
}
