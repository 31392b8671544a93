package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/lock"
)

func newStopCmd() *cobra.Command {
	var specPath string
	cmd := &cobra.Command{
		Use:   "stop --spec release.toml",
		Short: "Ask the release's running apply to stop cleanly",
		Long: `Ask the running apply of the release to stop, from another terminal.

Steps:
  1. find the release's latest run; refuse (exit 2) when it is not running
  2. leave a stop request in the run's directory

The run stops after its in-flight writes settle and ends "stopped" in its
journal; "piceli release resume" continues it later.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := readSpec(specPath)
			if err != nil {
				return err
			}
			run, err := runningRun(s.Release.StateDir)
			if err != nil {
				return err
			}
			if err := apply.RequestStop(s.Release.StateDir, run, lock.CurrentHolder("").String()); err != nil {
				return err
			}
			cmd.Printf("stop requested for run %s; it stops after its in-flight writes settle\n", run)
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "release.toml", "release spec file")
	return cmd
}

// runningRun returns the latest run when its journal says it is running.
func runningRun(stateDir string) (string, error) {
	run, err := apply.LatestRun(stateDir)
	if err != nil {
		return "", refused(err)
	}
	st, _, err := apply.Inspect(stateDir, run)
	if err != nil {
		return "", refused(err)
	}
	if st.Status != journal.StatusRunning {
		return "", refusedf("run %s is not running (it ended %s)", run, st.Status)
	}
	return run, nil
}
