package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/secret"
)

func newRollbackCmd() *cobra.Command {
	var f applyFlags
	var to int
	cmd := &cobra.Command{
		Use:   "rollback --spec release.toml [--to REV] [--approve HASH]",
		Short: "Plan an earlier revision against the cluster, and apply it when approved",
		Long: `Go back to an earlier revision of the release (default: the one before
the latest).

Steps:
  1. read the revision's objects from the release history, and the values of
     its declared secrets from the secret versions it used (the private
     store); the composition's current secret sources are not read
  2. plan them against the current cluster, as "release plan" does, store the
     plan and print its hash; without --approve, stop here (exit 3)
  3. with --approve: plan again now, refuse a stale plan (exit 2), lock the
     release and apply it as "release apply" does; the run becomes a new
     revision whose source is "rollback to REV"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pl, err := connectTarget(cmd, f.planFlags)
			if err != nil {
				return err
			}
			to, err := rollbackObjects(pl, to)
			if err != nil {
				return refused(err)
			}
			if f.approve == "" {
				return proposeRollback(cmd, pl, f, to)
			}
			source := apply.RollbackSource(to)
			approved, err := loadApproved(pl, f.approve)
			if err != nil {
				return err
			}
			input := func(ctx context.Context) (apply.Input, error) { return approvedInput(ctx, pl, f, approved, source) }
			return underLock(cmd, pl, f.output, apply.NewRunID(), input, (*apply.Engine).Apply)
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&to, "to", 0, "revision to go back to (default: the one before the latest)")
	cmd.Flags().StringVar(&f.approve, "approve", "", "hash of the rollback plan to apply")
	return cmd
}

// rollbackObjects replaces the rendered objects with those of revision to
// (0: the one before the latest) and returns its number.
func rollbackObjects(pl *planned, to int) (int, error) {
	rev, err := apply.RollbackTarget(pl.Spec.Release.StateDir, to)
	if err != nil {
		return 0, err
	}
	objs, versions, err := apply.RevisionObjects(rev, pl.Objects, plan.Digester{Key: pl.key}, secret.View(pl.Spec.Release.StateDir))
	if err != nil {
		return 0, err
	}
	pl.secrets = versions
	pl.Objects = objs
	pl.Composition.Components = nil
	return rev.Number, nil
}

// proposeRollback plans the rollback, stores and prints it, and asks for
// approval (exit 3).
func proposeRollback(cmd *cobra.Command, pl *planned, f applyFlags, to int) error {
	if err := pl.makePlan(cmd.Context(), f.planFlags); err != nil {
		return err
	}
	if err := storeUnblocked(pl); err != nil {
		return err
	}
	if err := printPlan(cmd, f.output, pl.plan); err != nil {
		return err
	}
	return &ExitError{Code: ExitApproval, Err: fmt.Errorf("approval required: nothing was applied; run: piceli release rollback --to %d --approve %s", to, plan.ShortHash(pl.plan.Hash))}
}
