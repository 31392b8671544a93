package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// planFlags are shared by plan, diff, apply, resume and rollback.
type planFlags struct {
	targetFlags
	output       string
	allowReplace bool
	reclaim      bool
	parallel     int
	artifact     string
	// markdown offers -o markdown: plan and diff, whose output is a
	// review comment; the commands that apply do not.
	markdown bool
}

// usageAllowReplace and usageParallel are the help of --allow-replace and
// --parallel, in the commands that plan.
const (
	usageAllowReplace = "plan delete-and-create for immutable field changes instead of refusing them"
	usageReclaim      = "take back declared fields another manager changed by an update (kubectl edit, kubectl scale) instead of blocking on them; the plan lists each with its manager"
	usageParallel     = "requests in flight at once: dry-runs when planning, writes within a wave when applying (0: 16)"
)

// usageOutputMarkdown is the help of -o on plan and diff.
const usageOutputMarkdown = "output format: text, json or markdown"

func (f *planFlags) register(cmd *cobra.Command) {
	f.targetFlags.register(cmd)
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", outputUsage(f.markdown))
	cmd.Flags().BoolVar(&f.allowReplace, "allow-replace", false, usageAllowReplace)
	cmd.Flags().BoolVar(&f.reclaim, "reclaim", false, usageReclaim)
	cmd.Flags().IntVar(&f.parallel, "parallel", 0, usageParallel)
	cmd.Flags().StringVar(&f.artifact, "artifact", "", usageArtifact)
}

// open checks the output format and opens the release.
func (f *planFlags) open(cmd *cobra.Command, opts release.Options) (*release.Release, error) {
	if f.output != "text" && f.output != "json" && (f.output != "markdown" || !f.markdown) {
		return nil, refusedf("unknown output format %q (want %s)", f.output, strings.TrimPrefix(outputUsage(f.markdown), "output format: "))
	}
	if f.parallel < 0 {
		return nil, refusedf("--parallel %d: want a positive number of requests, or 0 for the default", f.parallel)
	}
	opts.Artifact = f.artifact
	return f.targetFlags.open(cmd, opts)
}

// approveHint is approveCommand for a release opened with these flags: it
// names the artifact planned from, if any.
func (f *planFlags) approveHint(p *plan.Plan, to int) string {
	next := approveCommand(f.specFlag, p, to)
	if f.artifact == "" {
		return next
	}
	a := shellWord(f.artifact)
	return strings.Replace(next, " --approve ", " --artifact "+a+" --approve ", 1)
}

func newPlanCmd() *cobra.Command {
	f := planFlags{markdown: true}
	var showUnchanged bool
	cmd := &cobra.Command{
		Use:   "plan --spec release.toml [-o markdown]",
		Short: "Compute, store and print what applying the release would change",
		Long: `Compute what applying the release would change in its target cluster.

Steps:
  1. read the spec and render the composition (as "piceli render" does)
  2. connect to the kubeconfig file and context the spec names, and identify
     the cluster (server, context, kube-system UID)
  3. resolve every kind through discovery (or a CRD in the composition)
  4. list what exists, one request per kind and namespace
  5. dry-run the release's server-side apply of every object, and compare
     (an object still at the resourceVersion the release's last run left,
     with the same manifest, is unchanged without one)
  6. order the steps into waves, store the plan under state_dir/plans/ and
     print it with its hash

Nothing is written to the cluster. Approve the plan with
"piceli release apply --approve HASH".

With -o markdown the plan is printed as a pull-request review comment:
counts, each changed object with its fields, a Secret's keys but never a
value, and the approve command (see docs/review.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			p, err := r.Plan(cmd.Context(), release.PlanOptions{AllowReplace: f.allowReplace, Reclaim: f.reclaim, Parallel: f.parallel})
			if err != nil {
				return err
			}
			return printPlan(cmd, f.output, p, f.approveHint(p, 0), showUnchanged)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&showUnchanged, "show-unchanged", false, usageShowUnchanged)
	return cmd
}

// usageShowUnchanged is the help of --show-unchanged, in plan and diff.
const usageShowUnchanged = "list every unchanged object, not only each wave's count of them"

// printPlan writes the plan as text, JSON or Markdown, with next, the
// command that applies it (for a diff, the one that stores a plan); a
// blocked plan ends with exit code 1 after it is printed.
func printPlan(cmd *cobra.Command, output string, p *plan.Plan, next string, showUnchanged bool) error {
	switch output {
	case "json":
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return err
		}
	case "markdown":
		if err := p.WriteMarkdown(cmd.OutOrStdout(), plan.MarkdownOptions{Next: next}); err != nil {
			return err
		}
	default:
		p.Write(cmd.OutOrStdout(), plan.WriteOptions{Color: colorful(cmd), ShowUnchanged: showUnchanged})
		if p.Hash != "" {
			cmd.Printf("\nplan %s stored\napply it with: %s\n", p.Hash, next)
		}
	}
	if b := p.Blocked(); len(b) > 0 {
		err := fmt.Errorf("%d step(s) block this plan; it was not stored", len(b))
		if blocksReplace(p) {
			err = fmt.Errorf("%w; to delete and create again what an immutable field blocks, plan with --allow-replace", err)
		}
		if blocksEdit(p) {
			err = fmt.Errorf("%w; to take back fields someone edited (kubectl edit, kubectl scale), plan with --reclaim", err)
		}
		return &ExitError{Code: ExitFailed, Err: err}
	}
	return nil
}

// approveCommand is the command that applies the stored plan p: a rollback
// plan (to > 0) is applied by rollback, any other by apply.
func approveCommand(spec specFlag, p *plan.Plan, to int) string {
	cmd := "piceli release apply"
	if to > 0 {
		cmd = "piceli release rollback"
	}
	cmd += specArg(spec)
	if to > 0 {
		cmd += fmt.Sprintf(" --to %d", to)
	}
	return cmd + " --approve " + plan.ShortHash(p.Hash)
}

// blocksReplace reports whether an immutable field blocks a step of p,
// which planning with replacement allowed would delete and create again.
func blocksReplace(p *plan.Plan) bool {
	for _, s := range p.Steps {
		if s.Blocked != "" && s.Action == plan.Replace {
			return true
		}
	}
	return false
}

// blocksEdit says whether a step of p is blocked by a manager that edited
// a declared field (an update, which --reclaim takes back) and not by
// one that applied it.
func blocksEdit(p *plan.Plan) bool {
	for _, s := range p.Steps {
		for _, c := range s.Conflicts {
			if c.Operation == plan.OperationUpdate {
				return true
			}
		}
	}
	return false
}

// outputUsage is the help of -o: with markdown on plan and diff.
func outputUsage(markdown bool) string {
	if markdown {
		return usageOutputMarkdown
	}
	return usageOutput
}
