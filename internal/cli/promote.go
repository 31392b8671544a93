package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// promotionDocument is what promote -o json prints: the promotion and the
// command that applies its plan.
type promotionDocument struct {
	*release.Promotion
	Next string `json:"next,omitempty"` // empty when the plan is blocked and was not stored
}

func newPromoteCmd() *cobra.Command {
	var spec, from, to, output string
	var allowExec, allowReplace bool
	var parallel int
	cmd := &cobra.Command{
		Use:   "promote --spec release.toml --from staging --to prod [-o json]",
		Short: "Plan one environment with the image digests another one runs",
		Long: `Plan the --to environment with the image digests the --from environment runs.

Steps:
  1. read --from's latest revision (its last finished run) from its state
     directory; refuse one that is missing, damaged or whose checks failed
  2. read that revision's workloads and their pods live in --from's cluster;
     refuse when any runs another image than the revision applied
  3. render --to and match its containers with those --from ran (kind, name,
     namespace, container name); set the [images] keys that give them their
     images to the digests --from ran: --to keeps its own values, replicas,
     target and release settings
  4. plan --to as "piceli release plan --env TO" does, store the plan and print
     it with its hash

Nothing is written to either cluster. Apply the plan with
"piceli release apply --env TO --approve HASH": it renders the promoted images
the plan records. release.toml is not edited: a later plan of --to from the
spec plans the spec's own images again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if parallel < 0 {
				return refusedf("--parallel %d: want a positive number of requests, or 0 for the default", parallel)
			}
			opts := release.PromoteOptions{Options: release.Options{Log: cmd.ErrOrStderr(), AllowExec: allowExec},
				PlanOptions: release.PlanOptions{AllowReplace: allowReplace, Parallel: parallel}}
			p, err := release.Promote(cmd.Context(), spec, from, to, opts)
			if err != nil {
				return err
			}
			return printPromotion(cmd, output, p, specFlag{spec: spec, env: to})
		},
	}
	cmd.Flags().StringVar(&spec, "spec", "release.toml", usageSpec)
	cmd.Flags().StringVar(&from, "from", "", "environment whose latest revision's image digests are promoted (required)")
	cmd.Flags().StringVar(&to, "to", "", usageTo+"the environment planned with --from's image digests (required)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	cmd.Flags().BoolVar(&allowExec, "allow-exec", false, usageAllowExec)
	cmd.Flags().BoolVar(&allowReplace, "allow-replace", false, usageAllowReplace)
	cmd.Flags().IntVar(&parallel, "parallel", 0, usageParallel)
	return cmd
}

// printPromotion writes the promotion as text or JSON with the command
// that applies its plan; a blocked plan ends with exit code 1 after it is
// printed.
func printPromotion(cmd *cobra.Command, output string, p *release.Promotion, to specFlag) error {
	next := ""
	if p.Plan.Hash != "" {
		next = approveCommand(to, p.Plan, 0)
	}
	if output == "json" {
		if err := writeJSON(cmd, promotionDocument{Promotion: p, Next: next}); err != nil {
			return err
		}
	} else {
		p.Write(cmd.OutOrStdout(), plan.WriteOptions{Color: colorful(cmd)})
		if next != "" {
			cmd.Printf("\nplan %s stored\napply it with: %s\n", p.Plan.Hash, next)
		}
	}
	if b := p.Plan.Blocked(); len(b) > 0 {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%d step(s) block this plan; it was not stored", len(b))}
	}
	return nil
}
