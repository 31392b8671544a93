package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/plan"
)

// controllerTarget is the cluster flags of the controller's commands.
type controllerTarget struct{ clusterFlags }

func (f *controllerTarget) target() controller.Target {
	return controller.Target{Kubeconfig: f.kubeconfig, Context: f.context, AllowExec: f.allowExec}
}

func newControllerApproveCmd() *cobra.Command {
	var f controllerTarget
	var output string
	cmd := &cobra.Command{
		Use:   "approve NAMESPACE/NAME HASH --kubeconfig F --context C [-o json]",
		Short: "Approve the plan a Release waits on, by its hash",
		Long: `Approve the plan a Release waits on, by its hash.

Steps:
  1. read the Release; refuse (exit 2, nothing written) when it shows no
     plan, or when HASH (the full hash or its first 12 to 64 lower-case hex
     digits) is not the plan its status shows
  2. write that plan's full hash into the Release's spec.approve

The controller then applies exactly that plan within one interval, if the
source and the cluster still give it; a plan that changed has another hash
and waits for its own approval.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, key, err := connectRelease(cmd, f, args[0])
			if err != nil {
				return err
			}
			a, err := controller.Approve(cmd.Context(), c, key, args[1])
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, a)
			}
			cmd.Printf("approved plan %s of release %s/%s (source %s); the controller applies it within one interval\n", plan.ShortHash(a.Plan), a.Namespace, a.Name, a.Source)
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}

func newControllerSyncCmd() *cobra.Command {
	var f controllerTarget
	var output string
	cmd := &cobra.Command{
		Use:   "sync NAMESPACE/NAME --kubeconfig F --context C [-o json]",
		Short: "Ask the controller to try a Release's latest revision again now",
		Long: `Ask the controller to try a Release's latest revision again now.

Steps:
  1. read the Release; refuse (exit 2) when there is none
  2. write the time into its piceli.dev/sync annotation

The controller then resolves the source and plans at once, and tries again
a revision it gave up on (its runs failed five times, or its checks
failed). A plan still needs its approval, by hash or by the policy.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, key, err := connectRelease(cmd, f, args[0])
			if err != nil {
				return err
			}
			req, err := controller.Sync(cmd.Context(), c, key)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, req)
			}
			cmd.Printf("sync requested for release %s/%s; the controller tries its latest revision again now\n", req.Namespace, req.Name)
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}

func newControllerStatusCmd() *cobra.Command {
	var f controllerTarget
	var output, namespace, wait string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "status [NAMESPACE/NAME] --kubeconfig F --context C [--namespace N] [--wait STATE] [-o json]",
		Short: "Show the Releases the controller delivers: source, plan, state and runs",
		Long: `Show the Releases the controller delivers. Read-only.

Steps:
  1. with --wait STATE (and NAMESPACE/NAME), wait at most --wait-timeout until
     the Release's state is STATE (ApprovalRequired, Ready, ...) for its
     current spec; a Release that stalls meanwhile ends the wait (exit 1, why)
  2. read the Releases of the cluster (or of --namespace), or the one named
  3. print a table of them, or the one in detail: its source revision, the
     plan waiting for approval with its changes (field paths, never values),
     its conditions, checks and latest runs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				key, err := controller.ParseName(args[0])
				if err != nil {
					return err
				}
				namespace, name = key.Namespace, key.Name
			}
			if wait != "" && name == "" {
				return refusedf("--wait needs the Release as NAMESPACE/NAME")
			}
			if wait != "" && !slices.Contains(v1alpha1.States, wait) {
				return refusedf("--wait %q is not a state; want one of %s", wait, strings.Join(v1alpha1.States, ", "))
			}
			c, err := controller.Connect(cmd.Context(), f.target())
			if err != nil {
				return err
			}
			if wait != "" {
				ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
				defer cancel()
				if _, err := controller.WaitFor(ctx, c, types.NamespacedName{Namespace: namespace, Name: name}, wait); err != nil {
					return err
				}
			}
			doc, err := controller.Statuses(cmd.Context(), c, namespace, name)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, doc)
			}
			if name != "" {
				printReleaseDetail(cmd, doc.Releases[0])
				return nil
			}
			printReleaseTable(cmd, doc.Releases)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", usageNamespace+"Releases (default: all)")
	cmd.Flags().StringVar(&wait, "wait", "", "wait until the Release's state is this one (ApprovalRequired, Ready, ...)")
	cmd.Flags().DurationVar(&timeout, "wait-timeout", 5*time.Minute, "how long --wait waits")
	outputFlag(cmd, &output)
	return cmd
}

func printReleaseTable(cmd *cobra.Command, rels []controller.ReleaseReport) {
	if len(rels) == 0 {
		cmd.Println("no Releases")
		return
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tSTATE\tSOURCE\tPLAN\tAPPLIED")
	for _, r := range rels {
		hash := ""
		if r.Status.Plan != nil {
			hash = plan.ShortHash(r.Status.Plan.Hash)
		}
		applied := dash(r.Status.AppliedRevision)
		if r.Pin != nil {
			applied += " (pinned to " + r.Pin.Revision + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Namespace, r.Name, dash(r.Status.State), dash(r.Status.SourceRevision), dash(hash), applied)
	}
	tw.Flush()
}

// connectRelease parses NAMESPACE/NAME (exit 2 before any cluster is
// contacted) and connects to the controller's cluster: the first half of
// the commands that change one Release.
func connectRelease(cmd *cobra.Command, f controllerTarget, name string) (client.Client, types.NamespacedName, error) {
	key, err := controller.ParseName(name)
	if err != nil {
		return nil, key, err
	}
	c, err := controller.Connect(cmd.Context(), f.target())
	return c, key, err
}

func printReleaseDetail(cmd *cobra.Command, r controller.ReleaseReport) {
	st := r.Status
	cmd.Printf("release %s/%s: %s\n", r.Namespace, r.Name, dash(st.State))
	cmd.Printf("source:  %s\n", r.Source)
	cmd.Printf("latest:  %s\n", dash(st.SourceRevision))
	cmd.Printf("applied: %s\n", dash(st.AppliedRevision))
	if p := r.Pin; p != nil {
		line := "pinned:  " + p.Revision
		if p.By != "" {
			line += " by " + p.By
		}
		if !p.At.IsZero() {
			line += " at " + p.At.UTC().Format(time.RFC3339)
		}
		if p.Reason != "" {
			line += " (" + p.Reason + ")"
		}
		cmd.Println(line)
		if sp := st.Pin; sp != nil && sp.LatestPlan != "" {
			cmd.Printf("         held back: %s, plan %s; approve it (piceli controller approve %s/%s %s) or unpin to apply it\n", sp.LatestRevision, plan.ShortHash(sp.LatestPlan), r.Namespace, r.Name, plan.ShortHash(sp.LatestPlan))
		}
	}
	if p := st.Plan; p != nil {
		who := p.ApprovedBy
		if who == "" {
			who = "nobody yet"
		}
		cmd.Printf("plan:    %s (approved by %s)\n", p.Hash, who)
		if p.PolicyRefused != "" {
			cmd.Printf("         the policy does not approve it: %s\n", p.PolicyRefused)
		}
		for _, c := range p.Changes {
			cmd.Println(strings.TrimRight(fmt.Sprintf("  %-8s %s %s", c.Action, objectName(c), strings.Join(c.Fields, ", ")), " "))
		}
		if p.More > 0 {
			cmd.Printf("  … and %d more\n", p.More)
		}
	}
	printDrift(cmd, st.Drift)
	for _, typ := range []string{v1alpha1.ConditionReady, v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled, v1alpha1.ConditionApprovalRequired, v1alpha1.ConditionChecksPassed, v1alpha1.ConditionDrifted, v1alpha1.ConditionPinned} {
		if c := meta.FindStatusCondition(st.Conditions, typ); c != nil {
			line := fmt.Sprintf("%-16s %-5s %s", c.Type, c.Status, c.Reason)
			if c.Message != "" {
				line += ": " + c.Message
			}
			cmd.Println(line)
		}
	}
	for _, c := range st.Checks {
		mark := "passed"
		if !c.Passed {
			mark = "FAILED " + c.Message
		}
		cmd.Printf("check %s: %s\n", c.Name, mark)
	}
	for _, run := range st.Runs {
		fin := ""
		if run.Finished != nil {
			fin = run.Finished.Local().Format(time.DateTime)
		}
		cmd.Printf("run %d %s %s plan %s %s %s\n", run.Revision, run.ID, run.Phase, plan.ShortHash(run.Plan), dash(run.SourceRevision), fin)
	}
	if st.Signer != "" {
		cmd.Printf("controller signer (add to state_signers): %s\n", st.Signer)
	}
}

// printDrift lists what the last comparison of the live objects found, by
// object and field, with who changed each.
func printDrift(cmd *cobra.Command, d *v1alpha1.DriftStatus) {
	if d == nil {
		return
	}
	head := "drift:   since " + d.Since.Local().Format(time.DateTime)
	if d.Corrected != "" {
		head += ", corrected by run " + d.Corrected
	}
	cmd.Println(head)
	for _, o := range d.Objects {
		name := objectName(v1alpha1.Change{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
		if o.Action == "create" {
			cmd.Printf("  %s deleted\n", name)
			continue
		}
		for _, f := range o.Fields {
			cmd.Printf("  %s %s%s\n", name, f.Path, changedBy(f.Manager, f.Applied))
		}
	}
	if d.More > 0 {
		cmd.Printf("  … and %d more objects\n", d.More)
	}
	if d.Uncorrected != "" {
		cmd.Printf("  not corrected: %s\n", d.Uncorrected)
	}
}

func objectName(c v1alpha1.Change) string {
	if c.Namespace == "" {
		return c.Kind + "/" + c.Name
	}
	return c.Kind + "/" + c.Namespace + "/" + c.Name
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
