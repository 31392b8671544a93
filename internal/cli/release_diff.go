package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newDiffCmd() *cobra.Command {
	f := planFlags{markdown: true}
	var showUnchanged bool
	var exitCode bool
	cmd := &cobra.Command{
		Use:   "diff --spec release.toml [--exit-code] [-o markdown]",
		Short: "Show what applying the release would change, storing nothing",
		Long: `Show, field by field, what applying the release would change.

Steps:
  1. render, connect, resolve kinds, list what exists, dry-run and compare,
     as "piceli release plan" does
  2. print the result; store nothing (no plan, no key, no secret version)

With --exit-code the command exits 1 when anything would change, so scripts
can detect drift. With -o markdown the result is a pull-request review
comment, as "piceli release plan -o markdown" prints (see docs/review.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			p, err := r.Diff(cmd.Context(), release.PlanOptions{AllowReplace: f.allowReplace, Reclaim: f.reclaim, Parallel: f.parallel})
			if err != nil {
				return err
			}
			if err := printPlan(cmd, f.output, p, releaseCommand("plan", f.specFlag), showUnchanged); err != nil {
				return err
			}
			if exitCode && p.Changed() {
				return &ExitError{Code: ExitFailed, Err: fmt.Errorf("release %s would change", p.Release.Name)}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&showUnchanged, "show-unchanged", false, usageShowUnchanged)
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when applying would change anything")
	return cmd
}
