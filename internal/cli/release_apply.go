package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// applyFlags are the flags of apply, resume and rollback.
type applyFlags struct {
	planFlags
	approve    string
	skipChecks bool
}

// registerRun adds the flags of a command that runs: those of plan and
// --skip-checks.
func (f *applyFlags) registerRun(cmd *cobra.Command) {
	f.planFlags.register(cmd)
	cmd.Flags().BoolVar(&f.skipChecks, "skip-checks", false, "run no check after the last wave; the revision records that they were skipped")
}

func newApplyCmd() *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "apply --spec release.toml --approve HASH",
		Short: "Apply exactly an approved plan",
		Long: `Apply exactly the stored plan with the approved hash.

Steps:
  1. without --approve: plan, store, print the hash and exit 3 (approval required)
  2. take the release's file lock (one writer per state directory)
  3. load the approved plan (refused, exit 2, when it was edited since it
     was stored: every plan is sealed with a key kept in state_dir/keys);
     render the composition again (YAML/JSON files whose bytes have not
     changed since the plan take the plan's manifests instead) and list
     what exists, one request per kind and namespace (dry-running again
     only objects written since the plan), and refuse (exit 2, nothing written) when the composition
     renders differently, the target differs, or the cluster changed in a
     field the plan touches (status churn is not a change)
  4. take the release's Lease in the cluster, naming this holder
  5. for each wave: journal the intents, server-side apply (never forced,
     --parallel at a time), journal the outcomes, wait for readiness (except
     for the objects the plan lists as not waited for: piceli.dev/wait,
     [release] wait)
  6. run the spec's checks in order, each journaled (--skip-checks: none,
     and the revision says so); a failing check fails the run (exit 1),
     and with [release] on_failure = "rollback" the release is rolled back
     to its latest revision
  7. record the run as the release's next revision, with its checks

An interrupted run continues with "piceli release resume"; "piceli release
stop" ends one cleanly from another terminal. The first Ctrl-C stops the run
the same way; a second one abandons its in-flight writes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.approve == "" {
				return planFirst(cmd, f, func(r *release.Release, opts release.PlanOptions) (*plan.Plan, int, error) {
					p, err := r.Plan(cmd.Context(), opts)
					return p, 0, err
				})
			}
			return runRelease(cmd, f, func(r *release.Release, opts release.RunOptions) (*release.Result, error) {
				return r.Apply(cmd.Context(), f.approve, opts)
			})
		},
	}
	f.registerRun(cmd)
	cmd.Flags().StringVar(&f.approve, "approve", "", usageApprove)
	return cmd
}

// runRelease opens the release with a progress renderer, runs it with the
// first Ctrl-C as a clean stop, and reports how the run ended.
func runRelease(cmd *cobra.Command, f applyFlags, run func(*release.Release, release.RunOptions) (*release.Result, error)) error {
	d := newProgress(cmd, f.output)
	defer d.done()
	r, err := f.open(cmd, release.Options{Log: d.log})
	if err != nil {
		return err
	}
	opts := release.RunOptions{AllowReplace: f.allowReplace, Reclaim: f.reclaim, Parallel: f.parallel, SkipChecks: f.skipChecks,
		Interrupt: softStop(cmd.Context(), cmd.ErrOrStderr()), Events: d.events}
	_, err = run(r, opts)
	d.done()
	return reportRun(cmd, f.specFlag, f.output, err)
}

// reportRun maps how a run ended to an exit code and says why and what to
// do next; the progress display has already printed the run's end, so the
// message does not repeat it.
func reportRun(cmd *cobra.Command, spec specFlag, output string, err error) error {
	var failed *release.RunFailedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &failed) && cmd.Context().Err() != nil:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("interrupted, in-flight writes abandoned; resume it with: %s (it settles them by reading the cluster)", releaseCommand("resume", spec))}
	case errors.As(err, &failed) && failed.Rollback != nil:
		return &ExitError{Code: ExitFailed, Err: rolledBackText(spec, failed)}
	case errors.As(err, &failed) && failed.Result.Phase == release.PhaseStopped:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("stopped; continue it with: %s", releaseCommand("resume", spec))}
	case errors.As(err, &failed) && failed.Resumable():
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%w\nresume it with: %s", failed.Err, releaseCommand("resume", spec))}
	case errors.As(err, &failed):
		return &ExitError{Code: ExitFailed, Err: failed.Err}
	}
	return err
}

// releaseCommand is the hint to run "piceli release VERB" on spec, which
// it always names (see specArg).
func releaseCommand(verb string, spec specFlag) string {
	return "piceli release " + verb + specArg(spec)
}

// planFirst is what a command that applies does without --approve: it
// plans (planOf returns the plan and, for a rollback, the revision it goes
// back to), prints the plan and ends with exit code 3 (1 when the plan is
// blocked and can never be approved). Nothing is applied.
func planFirst(cmd *cobra.Command, f applyFlags, planOf func(*release.Release, release.PlanOptions) (*plan.Plan, int, error)) error {
	r, err := f.open(cmd, release.Options{})
	if err != nil {
		return err
	}
	p, to, err := planOf(r, release.PlanOptions{AllowReplace: f.allowReplace, Reclaim: f.reclaim, Parallel: f.parallel})
	if err != nil {
		return err
	}
	next := f.approveHint(p, to)
	if err := printPlan(cmd, f.output, p, next, false); err != nil {
		return err
	}
	return &ExitError{Code: ExitApproval, Err: fmt.Errorf("approval required: nothing was applied; run: %s", next)}
}
