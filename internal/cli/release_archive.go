package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newArchiveCmd() *cobra.Command {
	var f specFlag
	var run, out, output string
	cmd := &cobra.Command{
		Use:   "archive --spec release.toml [--run ID] --out DIR [-o json]",
		Short: "Export the session archive of a run, for the operations lens",
		Long: `Export the session archive of a run (the latest unless --run names one)
into DIR as RUN.archive.json.

The archive ("schema": "piceli.session-archive/v1") records the target's
identity, the release, revision and plan hash, every declared object with
its keyed digest and step outcome, the check results and times. It holds no
secret value. Every run writes one when it ends; "piceli observe status"
reads it.

Steps:
  1. find the run (no cluster is contacted)
  2. read its archive, or build it from its journal for an older run
  3. write it into DIR atomically, owner-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if out == "" {
				return refusedf("--out DIR is required")
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			exp, err := r.ExportArchive(cmd.Context(), out, release.ArchiveOptions{Run: run})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, exp)
			}
			cmd.Printf("session archive of run %s written to %s\n", exp.Run, exp.File)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&run, "run", "", "run id (default: the latest run)")
	cmd.Flags().StringVar(&out, "out", "", usageOutDir+"the archive into (required)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
