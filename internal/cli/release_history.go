package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/plan"
)

func newHistoryCmd() *cobra.Command {
	var specPath, output string
	cmd := &cobra.Command{
		Use:   "history --spec release.toml [-o json]",
		Short: "List the release's revisions",
		Long: `List every revision of the release.

Steps:
  1. read the revisions in the state directory (no cluster is contacted)
  2. print each one's number, plan hash, run, source (apply or rollback),
     finish time and object count, or one JSON document with -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := readSpec(specPath)
			if err != nil {
				return err
			}
			revs, err := history.List(s.Release.StateDir)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, map[string]any{"schema": "piceli.history/v1", "revisions": summaries(revs)})
			}
			printHistory(cmd, revs)
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "release.toml", "release spec file")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// summaries drops the objects of each revision for listing.
func summaries(revs []history.Revision) []history.Revision {
	out := make([]history.Revision, len(revs))
	for i, r := range revs {
		r.Objects = nil
		out[i] = r
	}
	return out
}

func printHistory(cmd *cobra.Command, revs []history.Revision) {
	if len(revs) == 0 {
		cmd.Println("no revisions yet")
		return
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tPLAN\tRUN\tSOURCE\tFINISHED\tOBJECTS")
	for _, r := range revs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\n", r.Number, plan.ShortHash(r.Plan), r.Run, r.Source, r.Finished.Local().Format(time.DateTime), len(r.Objects))
	}
	tw.Flush()
}

func writeJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newReleaseStatusCmd() *cobra.Command {
	var specPath string
	cmd := &cobra.Command{
		Use:   "status --spec release.toml",
		Short: "Show the release's latest run and revision",
		Long: `Show the release's latest revision and run.

Steps:
  1. read the latest revision from the state directory
  2. replay the latest run's journal (read-only) and print its status, its
     plan, how many waves are ready, and whether a resume has work to do

No cluster is contacted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := readSpec(specPath)
			if err != nil {
				return err
			}
			return printReleaseStatus(cmd, s.Release.StateDir)
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "release.toml", "release spec file")
	return cmd
}

func printReleaseStatus(cmd *cobra.Command, stateDir string) error {
	revs, err := history.List(stateDir)
	if err != nil {
		return err
	}
	if len(revs) > 0 {
		r := revs[len(revs)-1]
		cmd.Printf("revision %d: plan %s, finished %s\n", r.Number, plan.ShortHash(r.Plan), r.Finished.Local().Format(time.DateTime))
	}
	run, err := apply.LatestRun(stateDir)
	if err != nil {
		cmd.Println("no runs yet")
		return nil
	}
	st, tail, err := apply.Inspect(stateDir, run)
	if err != nil {
		return err
	}
	cmd.Printf("latest run %s: %s (plan %s, %d waves ready)\n", run, st.Status, plan.ShortHash(st.Plan), st.WavesReady)
	if tail != nil {
		cmd.Printf("its journal ends in a torn record (%s); resume repairs it\n", tail)
	}
	if n := len(st.InDoubt()); n > 0 {
		cmd.Printf("%d step(s) in doubt; resume settles them by reading the cluster\n", n)
	}
	return nil
}
