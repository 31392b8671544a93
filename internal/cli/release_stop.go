package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newStopCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "stop --spec release.toml",
		Short: "Ask the release's running apply to stop cleanly",
		Long: `Ask the running apply of the release to stop, from another terminal.

Steps:
  1. for state = "cluster", pull the release's state from the cluster
  2. find the release's latest run; refuse (exit 2), leaving no request,
     when it is not running: it ended, or it was interrupted (its holder is
     gone, so there is nothing to stop; "piceli release resume" continues it)
  3. leave a stop request: in the run's directory for a run on this machine;
     for state = "cluster" and a run on another machine, on the release's
     Lease, meant for that run's holder alone

The run stops after its in-flight writes settle and ends "stopped" in its
journal; "piceli release resume" continues it later, on any machine when the
state is shared. A run elsewhere reads the Lease at its next wave, or within
seconds while it waits for readiness.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			req, err := r.Stop(cmd.Context(), release.StopOptions{})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.NewStopRequestDoc(req))
			}
			cmd.Printf("stop requested for run %s of %s, through the %s; it stops after its in-flight writes settle\n", req.Run, req.Holder, req.Through)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
