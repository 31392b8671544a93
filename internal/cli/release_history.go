package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

func newHistoryCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "history --spec release.toml [-o json]",
		Short: "List the release's revisions",
		Long: `List every revision of the release.

Steps:
  1. read the revisions in the state directory (no cluster is contacted,
     unless [release] state = "cluster": then the state is pulled first)
  2. check each revision's seal (a rollback checks it against its plan too)
  3. print each one's number, plan hash, run, source (apply or rollback),
     finish time and object count, and why it is damaged, if it is, or one
     JSON document with -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			revs, err := r.History(cmd.Context(), release.HistoryOptions{Verify: true})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.NewHistoryDoc(revs))
			}
			printHistory(cmd, revs)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func printHistory(cmd *cobra.Command, revs []release.Revision) {
	if len(revs) == 0 {
		cmd.Println("no revisions yet")
		return
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tPLAN\tRUN\tSOURCE\tFINISHED\tOBJECTS\tCHECKS")
	for _, r := range revs {
		objects := fmt.Sprint(r.Objects)
		if r.Unchanged {
			objects += " (none changed)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Number, plan.ShortHash(r.Plan), r.Run, r.Source, r.Finished.Local().Format(time.DateTime), objects, checksColumn(r.Checks))
	}
	tw.Flush()
	for _, r := range revs {
		if r.Damaged != "" {
			cmd.Printf("DAMAGED: %s\n", r.Damaged)
		}
	}
}

func writeJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newReleaseRunCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "run --spec release.toml [ID] [-o json]",
		Short: "Show a run of the release (default: the latest) and its latest revision",
		Long: `Show a run of the release, the latest one unless ID names another, and
the release's latest revision.

Steps:
  1. read the latest revision from the state directory and check it as a
     rollback or compensation would before restoring it (seal, plan, objects)
  2. replay the run's journal (read-only) and print its phase, its plan, how
     many waves are ready, and whether a resume has work to do
  3. for a run its journal calls running, check the state directory's file
     lock: held for the run, it is running (and who runs it is printed);
     otherwise its holder is gone and the run is "interrupted", which
     "piceli release resume" continues

No cluster is contacted and nothing is written, unless [release] state =
"cluster": then the state directory is brought up to date from it first.
Whether the app is up is "piceli status".`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			rep, err := r.Run(cmd.Context(), id)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, rep)
			}
			printRunReport(cmd, rep, f.specFlag)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// printRunReport prints st for people; spec is the spec file as given,
// for the command that resumes an interrupted run.
func printRunReport(cmd *cobra.Command, st *release.RunReport, spec specFlag) {
	if r := st.Latest; r != nil {
		cmd.Printf("revision %d: plan %s, finished %s\n", r.Number, plan.ShortHash(r.Plan), r.Finished.Local().Format(time.DateTime))
		if r.Damaged != "" {
			cmd.Printf("DAMAGED: %s; a rollback or compensation will not restore it\n", r.Damaged)
		}
	}
	run := st.Run
	if run == nil {
		cmd.Println("no runs yet")
		return
	}
	cmd.Printf("run %s: %s (plan %s, %d waves ready)\n", run.ID, run.Phase, plan.ShortHash(run.Plan), run.WavesReady)
	printHolder(cmd, run, spec)
	if run.TornTail != "" {
		cmd.Printf("its journal ends in a torn record (%s); resume repairs it\n", run.TornTail)
	}
	if run.InDoubt > 0 {
		cmd.Printf("%d step(s) in doubt; resume settles them by reading the cluster\n", run.InDoubt)
	}
}

// printHolder says who runs a running run, or that an interrupted run's
// holder is gone and how to continue it.
func printHolder(cmd *cobra.Command, run *release.Run, spec specFlag) {
	switch {
	case run.Phase == release.PhaseRunning:
		cmd.Printf("run by %s\n", run.Holder)
	case run.Phase == release.PhaseInterrupted && run.Holder != "":
		cmd.Printf("its holder %s is gone; continue it with: %s\n", run.Holder, releaseCommand("resume", spec))
	case run.Phase == release.PhaseInterrupted:
		cmd.Printf("its holder is gone; continue it with: %s\n", releaseCommand("resume", spec))
	}
}
