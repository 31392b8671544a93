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
	cmd := &cobra.Command{
		Use:   "status --spec release.toml [-o json]",
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

Exit 0 when every object is ready, 1 when one is not. Nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			st, err := r.Status(cmd.Context(), release.StatusOptions{})
			if err != nil {
				return err
			}
			if output == "json" {
				err = writeJSON(cmd, st)
			} else {
				printAppStatus(cmd.OutOrStdout(), st)
			}
			if err == nil && !st.Ready {
				err = &ExitError{Code: ExitFailed, Err: fmt.Errorf("not ready: %s", st.Summary)}
			}
			return err
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
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
	fmt.Fprintf(w, "reach it: %s\n", st.Access)
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
