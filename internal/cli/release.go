package cli

import "github.com/spf13/cobra"

func newReleaseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "release",
		Short: "Plan, apply and inspect a release in a named cluster",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newPlanCmd(), newDiffCmd(), newApplyCmd(), newResumeCmd(), newStopCmd(), newHistoryCmd(), newReleaseRunCmd(), newRollbackCmd(), newGCCmd(), newSecretCmd(), newCheckCmd(), newArchiveCmd())
	return cmd
}
