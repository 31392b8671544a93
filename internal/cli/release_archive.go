package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newArchiveCmd() *cobra.Command {
	var f specFlag
	var run, out string
	cmd := &cobra.Command{
		Use:   "archive --spec release.toml [--run ID] --out FILE",
		Short: "Export the session archive of a run, for the operations lens",
		Long: `Export the session archive of a run (the latest unless --run names one).

The archive ("schema": "piceli.session-archive/v1") records the target's
identity, the release, revision and plan hash, every declared object with
its keyed digest and step outcome, the check results and times. It holds no
secret value. Every run writes one when it ends; "piceli observe status"
reads it.

Steps:
  1. find the run (no cluster is contacted)
  2. read its archive, or build it from its journal for an older run
  3. write it to FILE atomically, owner-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return refusedf("--out FILE is required")
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			if _, err := r.Archive(cmd.Context(), release.ArchiveOptions{Run: run, Out: out}); err != nil {
				return err
			}
			cmd.PrintErrf("session archive written to %s\n", out)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&run, "run", "", "run id (default: the latest run)")
	cmd.Flags().StringVar(&out, "out", "", "file to write the archive to")
	return cmd
}
