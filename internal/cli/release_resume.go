package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newResumeCmd() *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "resume --spec release.toml",
		Short: "Continue the release's interrupted or stopped run",
		Long: `Continue the latest run of the release with the same plan.

Steps:
  1. find the latest run and its plan; render and plan again now (a
     rollback run takes its objects and secret versions from its revision)
  2. refuse (exit 2) when a step the run has not written yet changed in the
     cluster since the plan was approved
  3. lock the release; reopen the run's journal (a torn last record is repaired)
  4. settle every in-doubt step by reading the cluster: was the write applied?
  5. run the remaining waves as apply does

No step is written twice.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRelease(cmd, f, func(r *release.Release, opts release.RunOptions) (*release.Result, error) {
				return r.Resume(cmd.Context(), opts)
			})
		},
	}
	f.registerRun(cmd)
	return cmd
}
