package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newStatusCmd() *cobra.Command {
	var f targetFlags
	var output string
	var drift bool
	cmd := &cobra.Command{
		Use:   "status --spec release.toml [--drift] [-o json]",
		Short: "Say whether the app is up, and how to reach it",
		Long: `Say whether every object of the release is ready, and how to reach the app.

Steps:
  1. take the objects of the latest revision (before the first, the
     composition's) and connect to the target
  2. read them with one LIST per kind and namespace (Secrets as metadata
     only), plus the pods and claims of namespaces with workloads
  3. print each object's readiness (kstatus rules), a workload's ready and
     desired replicas, why it is not ready (image pull, crash loop,
     unschedulable, pending claim), the Services and their ports, the
     Ingress hosts, the latest revision and its checks, and the piceli
     access command; or one JSON document with -o json
     ("schema": "piceli.status/v1")
  4. with --drift, also plan the latest revision's objects against the
     cluster (server-side dry-runs of the objects whose declared fields
     someone wrote since the release did) and list each declared field whose live value differs,
     with the field manager that changed it, and each deleted object

Exit 0 when every object is ready (and, with --drift, nothing drifted), 1
when one is not. Nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			st, err := r.Status(cmd.Context(), release.StatusOptions{Drift: drift})
			if err != nil {
				return err
			}
			if output == "json" {
				err = writeJSON(cmd, st)
			} else {
				printAppStatus(cmd.OutOrStdout(), st)
			}
			switch {
			case err != nil:
			case !st.Ready:
				err = &ExitError{Code: ExitFailed, Err: fmt.Errorf("not ready: %s", st.Summary)}
			case st.Drift != nil && st.Drift.Drifted():
				err = &ExitError{Code: ExitFailed, Err: fmt.Errorf("drifted: %d objects differ from revision %d", len(st.Drift.Objects), st.Drift.Revision)}
			}
			return err
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	cmd.Flags().BoolVar(&drift, "drift", false, "also compare the latest revision's objects with the cluster (dry-runs; needs the rights a plan needs) and list what others changed")
	return cmd
}

// printAppStatus prints an AppStatus for people.
func printAppStatus(w io.Writer, st *release.Status) {
	verdict := "READY"
	if !st.Ready {
		verdict = "NOT READY"
	}
	fmt.Fprintf(w, "release %s in namespace %s (%s): %s, %s\n\n", st.Release, st.Namespace, st.Source, verdict, st.Summary)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tOBJECT\tREPLICAS\tMESSAGE")
	for _, o := range st.Objects {
		reps := ""
		if o.Replicas != nil {
			reps = fmt.Sprintf("%d/%d", o.Replicas.Ready, o.Replicas.Desired)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Status, o.Ref, reps, o.Message)
		for _, why := range o.Reasons {
			fmt.Fprintf(tw, "\t  %s\t\t\n", why)
		}
	}
	tw.Flush()
	printReach(w, st)
}

// printReach prints the Services, Ingress hosts, revision and the access
// command.
func printReach(w io.Writer, st *release.Status) {
	if len(st.Services) > 0 {
		fmt.Fprintln(w, "\nservices:")
		for _, s := range st.Services {
			var ports []string
			for _, p := range s.Ports {
				ports = append(ports, fmt.Sprintf("%d→%s/%s", p.Port, p.TargetPort, p.Protocol))
			}
			fmt.Fprintf(w, "  %s/%s (%s): %s\n", s.Namespace, s.Name, s.Type, strings.Join(ports, ", "))
		}
	}
	for _, i := range st.Ingresses {
		fmt.Fprintf(w, "ingress %s/%s hosts: %s\n", i.Namespace, i.Name, strings.Join(i.Hosts, ", "))
	}
	fmt.Fprintln(w)
	if r := st.Revision; r != nil {
		fmt.Fprintf(w, "revision %d (%s, %s): %s\n", r.Number, r.Source, r.Outcome, checksSummary(r.Checks))
	}
	if run := st.Run; run != nil && (st.Revision == nil || run.ID != st.Revision.Run) {
		fmt.Fprintf(w, "latest run %s: %s%s\n", run.ID, run.Phase, runChecks(run.Checks))
	}
	printReleaseDrift(w, st.Drift)
	fmt.Fprintf(w, "reach it: %s\n", st.Access)
}

// printReleaseDrift lists what differs from the latest revision, when it
// was compared.
func printReleaseDrift(w io.Writer, d *release.DriftReport) {
	switch {
	case d == nil:
		return
	case !d.Drifted():
		fmt.Fprintf(w, "drift: none; the cluster is what revision %d left\n", d.Revision)
		return
	}
	fmt.Fprintf(w, "drift from revision %d:\n", d.Revision)
	for _, o := range d.Objects {
		if o.Deleted {
			fmt.Fprintf(w, "  %s deleted\n", o.Ref)
			continue
		}
		for _, f := range o.Fields {
			fmt.Fprintf(w, "  %s %s%s\n", o.Ref, f.Path, changedBy(f.Manager, f.Applied))
		}
	}
}

// changedBy says who changed a drifted field, when known: a manager that
// owns it by server-side apply, or one that edited it.
func changedBy(manager string, applied bool) string {
	switch {
	case applied:
		return " (owned by " + manager + " through server-side apply)"
	case manager != "":
		return " (changed by " + manager + ")"
	}
	return ""
}

// checksSummary says what a revision's checks found.
func checksSummary(c *release.RevisionChecks) string {
	switch {
	case c == nil:
		return "no checks recorded"
	case c.Skipped:
		return "checks skipped (" + c.Reason + ")"
	}
	return "checks" + runChecks(c.Results)
}

// checksColumn is a revision's checks in a table: "2 passed", "1 of 2
// failed", "skipped" or "-".
func checksColumn(c *release.RevisionChecks) string {
	switch {
	case c == nil || (!c.Skipped && len(c.Results) == 0):
		return "-"
	case c.Skipped:
		return "skipped"
	}
	return strings.TrimPrefix(runChecks(c.Results), ": ")
}

// runChecks lists check results briefly: ": 2 passed, 1 failed (api)".
func runChecks(cs []release.CheckResult) string {
	if len(cs) == 0 {
		return ""
	}
	var failed []string
	for _, c := range cs {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	s := fmt.Sprintf(": %d passed", len(cs)-len(failed))
	if len(failed) > 0 {
		s += fmt.Sprintf(", %d failed (%s)", len(failed), strings.Join(failed, ", "))
	}
	return s
}
