package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/spec"
)

// applyFlags are the flags of apply, resume and rollback.
type applyFlags struct {
	planFlags
	approve string
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
  3. load the approved plan; render the composition and plan again now, and
     refuse (exit 2, nothing written) when the composition renders
     differently, the target differs, or the cluster changed in a field the
     plan touches (status churn is not a change)
  4. take the release's Lease in the cluster, naming this holder
  5. for each wave: journal the intents, server-side apply (never forced),
     journal each outcome, wait for readiness
  6. record the run as the release's next revision

An interrupted run continues with "piceli release resume"; "piceli release
stop" ends one cleanly from another terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.approve == "" {
				return planForApproval(cmd, f.planFlags)
			}
			return runApproved(cmd, f, apply.SourceApply)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.approve, "approve", "", "hash (or its first 12 hex digits) of the plan to apply")
	return cmd
}

// planForApproval plans and stores like "release plan", then asks for
// approval with exit code 3.
func planForApproval(cmd *cobra.Command, f planFlags) error {
	pl, err := makePlan(cmd, f)
	if err != nil {
		return err
	}
	if err := storeUnblocked(pl); err != nil {
		return err
	}
	if err := printPlan(cmd, f.output, pl.plan); err != nil {
		return err
	}
	return &ExitError{Code: ExitApproval, Err: fmt.Errorf("approval required: nothing was applied; run again with --approve %s", plan.ShortHash(pl.plan.Hash))}
}

// runApproved locks the release, checks the approved plan against a fresh
// one and runs the engine.
func runApproved(cmd *cobra.Command, f applyFlags, source string) error {
	pl, err := openTarget(cmd, f.planFlags)
	if err != nil {
		return err
	}
	approved, err := loadApproved(pl, f.approve)
	if err != nil {
		return err
	}
	input := func(ctx context.Context) (apply.Input, error) { return approvedInput(ctx, pl, f, approved, source) }
	return underLock(cmd, pl, f.output, apply.NewRunID(), input, (*apply.Engine).Apply)
}

// loadApproved loads the approved plan before anything is locked: a plan
// file never changes, and an unknown hash or a blocked plan is refused
// without touching the state directory.
func loadApproved(pl *planned, hash string) (*plan.Plan, error) {
	approved, _, err := plan.Load(pl.Spec.Release.StateDir, hash)
	if err != nil {
		return nil, refused(err)
	}
	if b := approved.Blocked(); len(b) > 0 {
		return nil, refused(&apply.BlockedError{Reasons: b})
	}
	return approved, nil
}

// approvedInput plans again now and checks the approved plan against it.
func approvedInput(ctx context.Context, pl *planned, f applyFlags, approved *plan.Plan, source string) (apply.Input, error) {
	if err := pl.makePlan(ctx, f.planFlags); err != nil {
		return apply.Input{}, err
	}
	if err := apply.Approve(approved, pl.plan, nil); err != nil {
		return apply.Input{}, refused(err)
	}
	in := apply.NewInput(approved, pl.plan, pl.Objects, pl.key, source)
	in.Secrets = pl.secretVersions()
	return in, nil
}

// engineRun starts or resumes a run: (*apply.Engine).Apply or Resume.
type engineRun func(e *apply.Engine, ctx context.Context, run string, in apply.Input) (*apply.Result, error)

// underLock takes the release's file lock, checks with input what run is
// to do, then takes the cluster Lease and runs it with an engine that
// prints progress; it reports how the run ended. The Lease comes after the
// check so that a refusal writes nothing to the cluster; the file lock
// already keeps other applies of this state directory out, and the
// engine's writes are conditional on what the check read.
func underLock(cmd *cobra.Command, pl *planned, output, run string, input func(context.Context) (apply.Input, error), start engineRun) error {
	rl, ctx, err := lockRelease(cmd, pl.client, pl.loaded, run)
	if err != nil {
		return err
	}
	defer rl.unlock(cmd.Context())
	in, err := input(ctx)
	if err != nil {
		return err
	}
	if err := pl.saveSecrets(); err != nil {
		return err
	}
	if err := rl.ensureLease(ctx, 0); err != nil {
		return err
	}
	r := pl.Spec.Release
	events, done := newProgress(cmd, output)
	e := &apply.Engine{Client: pl.client, StateDir: r.StateDir, Events: events, Options: apply.Options{
		Holder: rl.holder.String(), AfterWave: rl.ensureLease,
		Compensate: r.OnFailure == spec.OnFailureCompensate, ReadyTimeout: r.ReadyTimeout,
	}}
	res, err := start(e, ctx, run, in)
	done()
	if err == nil {
		err = pruneSecrets(r.StateDir)
	}
	return reportRun(cmd, res, err)
}

// reportRun prints how a run ended and maps it to an exit code.
func reportRun(cmd *cobra.Command, res *apply.Result, err error) error {
	switch {
	case err == nil:
		cmd.PrintErrf("run %s finished: revision %d\n", res.Run, res.Revision)
		return nil
	case errors.As(err, new(*apply.CompensatedError)):
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("run %s failed: %w", res.Run, err)}
	case errors.Is(err, apply.ErrStopped):
		cmd.PrintErrf("run %s stopped; continue it with: piceli release resume\n", res.Run)
		return &ExitError{Code: ExitFailed, Err: err}
	case res != nil:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("run %s failed (resume it with: piceli release resume): %w", res.Run, err)}
	}
	return err // refused before the run started
}
