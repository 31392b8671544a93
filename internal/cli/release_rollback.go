package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
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
			if f.approve == "" {
				return planFirst(cmd, f, func(r *release.Release, opts release.PlanOptions) (*plan.Plan, int, error) {
					rp, err := r.PlanRollback(cmd.Context(), to, opts)
					if err != nil {
						return nil, 0, err
					}
					return rp.Plan, rp.To, nil
				})
			}
			return runRelease(cmd, f, func(r *release.Release, opts release.RunOptions) (*release.Result, error) {
				return r.Rollback(cmd.Context(), to, f.approve, opts)
			})
		},
	}
	f.registerRun(cmd)
	cmd.Flags().IntVar(&to, "to", 0, usageTo+"the revision to go back to (default: the one before the latest)")
	cmd.Flags().StringVar(&f.approve, "approve", "", usageApprove+" (a rollback plan)")
	return cmd
}
