package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/plan"
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
			pl, err := connectTarget(cmd, f.planFlags)
			if err != nil {
				return err
			}
			run, source, err := runToResume(cmd.Context(), pl)
			if err != nil {
				return err
			}
			input := func(ctx context.Context) (apply.Input, error) { return resumeInput(ctx, pl, f, run, source) }
			return underLock(cmd, pl, f.output, run, input, (*apply.Engine).Resume)
		},
	}
	f.register(cmd)
	return cmd
}

// runToResume finds the latest run and gives pl the objects it applies:
// the composition's, or for a rollback run its revision's.
func runToResume(ctx context.Context, pl *planned) (string, string, error) {
	run, err := apply.LatestRun(pl.Spec.Release.StateDir)
	if err != nil {
		return "", "", refused(err)
	}
	source, err := apply.RunSource(pl.Spec.Release.StateDir, run)
	if err != nil {
		return "", "", err
	}
	if n, ok := apply.RollbackOf(source); ok {
		_, err = rollbackObjects(pl, n)
		return run, source, refused(err)
	}
	return run, source, pl.resolveSecrets(ctx)
}

// resumeInput loads the run's plan and checks its untouched steps against
// a fresh plan.
func resumeInput(ctx context.Context, pl *planned, f applyFlags, run, source string) (apply.Input, error) {
	st, _, err := apply.Inspect(pl.Spec.Release.StateDir, run)
	if err != nil {
		return apply.Input{}, refused(err)
	}
	approved, _, err := plan.Load(pl.Spec.Release.StateDir, st.Plan)
	if err != nil {
		return apply.Input{}, refused(err)
	}
	if err := pl.makePlan(ctx, f.planFlags); err != nil {
		return apply.Input{}, err
	}
	if err := apply.Approve(approved, pl.plan, apply.Untouched(approved, st)); err != nil {
		return apply.Input{}, refused(err)
	}
	in := apply.NewInput(approved, pl.plan, pl.Objects, pl.key, source)
	in.Secrets = pl.secretVersions()
	return in, nil
}
