package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/observe"
)

func newObserveStatusCmd() *cobra.Command {
	var f clusterFlags
	var archivePath, output string
	cmd := &cobra.Command{
		Use:   "status --archive FILE --kubeconfig F --context C [-o json]",
		Short: "Reconcile a session archive with the cluster",
		Long: `Reconcile a session archive with the cluster: each object is present (with
its readiness), missing, undeclared (in the archive's namespaces, of a kind
it declares or a common kind such as ConfigMap, Secret, Service, Deployment
or Role, but not in it: information, never permission to adopt or delete)
or unknown (no permission to read it). A cluster other than the archive's
is said plainly.

Steps:
  1. read the archive
  2. read the cluster's identity, then one LIST per declared kind and
     namespace (Secrets as metadata only), and one metadata-only LIST per
     common kind the archive does not declare that the cluster serves
  3. print each object, or one JSON document with -o json
     ("schema": "piceli.observe-status/v1")

Exit 0 when every declared object is present and ready on the archive's
cluster, 1 otherwise, 2 on bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			a, err := observe.ReadArchive(archivePath)
			if err != nil {
				return err
			}
			cl, err := f.connect(cmd)
			if err != nil {
				return err
			}
			rep, err := observe.Status(cmd.Context(), cl, a, observe.StatusOptions{})
			if err != nil {
				return err
			}
			if output == "json" {
				if err := writeJSON(cmd, rep); err != nil {
					return err
				}
			} else {
				printReport(cmd, rep)
			}
			return unhealthy(rep)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&archivePath, "archive", "", "session archive file (piceli release archive writes one)")
	outputFlag(cmd, &output)
	return cmd
}

func printReport(cmd *cobra.Command, r *observe.Report) {
	s := r.Session
	cmd.Printf("release %s, run %s (%s), plan %s, revision %d\n", s.Release, s.Run, s.Status, s.Plan, s.Revision)
	if r.Cluster.Message != "" {
		cmd.Printf("WARNING: %s\n", r.Cluster.Message)
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tSTATE\tREADINESS\tMESSAGE")
	for _, o := range r.Objects {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Object, o.State, o.Readiness, o.Message)
		for _, e := range o.Edits {
			fmt.Fprintf(tw, "\t  edited by %s at %s: %s\t\t\n", e.Manager, e.Time, editedFields(e))
		}
	}
	tw.Flush()
	for _, u := range r.Unreadable {
		cmd.Printf("no permission to list %s\n", u)
	}
	c := r.Counts
	cmd.Printf("%d present, %d missing, %d undeclared, %d unknown\n", c[observe.Present], c[observe.Missing], c[observe.Undeclared], c[observe.Unknown])
	if r.Edited > 0 {
		cmd.Printf("%d edited since the run (drift: see piceli status --drift)\n", r.Edited)
	}
}

// editedFields lists an edit's fields, and how many more there are.
func editedFields(e observe.Edit) string {
	s := strings.Join(e.Fields, ", ")
	if e.More > 0 {
		s += fmt.Sprintf(" and %d more", e.More)
	}
	return s
}
