package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newStopCmd() *cobra.Command {
	var f specFlag
	cmd := &cobra.Command{
		Use:   "stop --spec release.toml",
		Short: "Ask the release's running apply to stop cleanly",
		Long: `Ask the running apply of the release to stop, from another terminal.

Steps:
  1. find the release's latest run; refuse (exit 2), leaving no request,
     when it is not running: it ended, or it was interrupted (its holder is
     gone, so there is nothing to stop; "piceli release resume" continues it)
  2. leave a stop request in the run's directory

The run stops after its in-flight writes settle and ends "stopped" in its
journal; "piceli release resume" continues it later.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			run, err := r.Stop(cmd.Context(), release.StopOptions{})
			if err != nil {
				return err
			}
			cmd.Printf("stop requested for run %s; it stops after its in-flight writes settle\n", run)
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
