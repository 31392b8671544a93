package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/secret"
)

// planFlags are shared by plan and diff.
type planFlags struct {
	targetFlags
	output       string
	allowReplace bool
}

func (f *planFlags) register(cmd *cobra.Command) {
	f.targetFlags.register(cmd)
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&f.allowReplace, "allow-replace", false, "plan delete-and-create for immutable field changes instead of refusing them")
}

func newPlanCmd() *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan --spec release.toml",
		Short: "Compute, store and print what applying the release would change",
		Long: `Compute what applying the release would change in its target cluster.

Steps:
  1. read the spec and render the composition (as "piceli render" does)
  2. connect to the kubeconfig file and context the spec names, and identify
     the cluster (server, context, kube-system UID)
  3. resolve every kind through discovery (or a CRD in the composition)
  4. list what exists, one request per kind and namespace
  5. dry-run the release's server-side apply of every object, and compare
  6. order the steps into waves, store the plan under state_dir/plans/ and
     print it with its hash

Nothing is written to the cluster. Approve the plan with
"piceli release apply --approve HASH".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pl, err := makePlan(cmd, f)
			if err != nil {
				return err
			}
			if err := storeUnblocked(pl); err != nil {
				return err
			}
			return printPlan(cmd, f.output, pl.plan)
		},
	}
	f.register(cmd)
	return cmd
}

// planned is a release connected to its cluster, and planned.
type planned struct {
	*loaded
	client  *kube.Client
	key     []byte // the digest key plans are made with
	plan    *plan.Plan
	secrets map[string]*secret.Version // resolved declared secrets, values in memory only

	newSecrets []*secret.Version // versions not in the store yet (saveSecrets)
}

// openTarget loads the spec and composition, connects, and resolves the
// composition's declared secrets. It writes nothing but new secret
// versions (none when f.dryRun): the digest key is stored only with a plan.
func openTarget(cmd *cobra.Command, f planFlags) (*planned, error) {
	pl, err := connectTarget(cmd, f)
	if err != nil {
		return nil, err
	}
	return pl, pl.resolveSecrets(cmd.Context())
}

// connectTarget is openTarget without resolving secrets, for a rollback,
// which takes their values from the store versions its revision used and
// so needs no current source.
func connectTarget(cmd *cobra.Command, f planFlags) (*planned, error) {
	if f.output != "text" && f.output != "json" {
		return nil, refusedf("unknown output format %q (want text or json)", f.output)
	}
	l, err := loadSpec(cmd, f.spec)
	if err != nil {
		return nil, err
	}
	c, err := connect(cmd, l, f.allowExec)
	if err != nil {
		return nil, err
	}
	key, err := plan.ReadKey(l.Spec.Release.StateDir)
	if err != nil {
		return nil, err
	}
	return &planned{loaded: l, client: c, key: key}, nil
}

// makePlan plans the release against its cluster.
func (pl *planned) makePlan(ctx context.Context, f planFlags) error {
	p, err := plan.Make(ctx, pl.client, planInput(pl.loaded), plan.Options{AllowReplace: f.allowReplace, Key: pl.key})
	pl.plan = p
	return classify(err)
}

// makePlan opens the target and plans.
func makePlan(cmd *cobra.Command, f planFlags) (*planned, error) {
	pl, err := openTarget(cmd, f)
	if err != nil {
		return nil, err
	}
	return pl, pl.makePlan(cmd.Context(), f)
}

// storeUnblocked stores the digest key (first plan of a release) and the
// plan, unless the plan is blocked and could never be applied.
func storeUnblocked(pl *planned) error {
	if len(pl.plan.Blocked()) > 0 {
		return nil
	}
	if err := pl.saveSecrets(); err != nil {
		return err
	}
	if err := plan.StoreKey(pl.Spec.Release.StateDir, pl.key); err != nil {
		return err
	}
	_, err := plan.Save(pl.Spec.Release.StateDir, pl.plan)
	return err
}

func planInput(l *loaded) plan.Input {
	r := l.Spec.Release
	return plan.Input{
		Release:    plan.Release{Name: r.Name, Owner: r.Owner, FieldManager: r.FieldManager},
		Namespace:  l.Spec.Target.Namespace,
		Objects:    l.Objects,
		Components: l.Composition.Components,
		Prune:      r.Prune,
	}
}

// printPlan writes the plan as text or JSON; a blocked plan ends with exit
// code 1 after it is printed.
func printPlan(cmd *cobra.Command, output string, p *plan.Plan) error {
	if output == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return err
		}
	} else {
		plan.WriteText(cmd.OutOrStdout(), p, plan.TextOptions{Color: colorful(cmd)})
		if p.Hash != "" {
			cmd.Printf("\nplan %s stored\napply it with: piceli release apply --approve %s\n", p.Hash, plan.ShortHash(p.Hash))
		}
	}
	if b := p.Blocked(); len(b) > 0 {
		return &ExitError{Code: ExitFailed, Err: errBlocked(len(b))}
	}
	return nil
}

func errBlocked(n int) error {
	return fmt.Errorf("%d step(s) block this plan; it was not stored", n)
}
