package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/controller"
)

func newControllerRollbackCmd() *cobra.Command {
	var f controllerTarget
	var output, to, reason string
	cmd := &cobra.Command{
		Use:   "rollback NAMESPACE/NAME --to REV --kubeconfig F --context C [--reason TEXT] [-o json]",
		Short: "Pin a Release to a source revision it ran before",
		Long: `Pin a Release to a source revision it ran before.

Steps:
  1. read the Release; refuse (exit 2, nothing written) when there is none,
     or when --to names no source revision it ran, or more than one: REV is
     a revision as its status shows it (status.appliedRevision and the
     runs' sourceRevision, listed by piceli controller status): the whole
     REF@ID, the ID (sha256:... or a commit), or 12 or more of its first hex
     digits
  2. write spec.pin (the revision, --reason, who and when) and clear
     spec.approve, in one write conditional on the Release read

The controller then plans the pinned revision; its plan is approved like
any other (piceli controller approve by hash, or the Release's policy) and
applied. From then on newer revisions of the source are planned and shown
in the status, never applied, until piceli controller unpin, or until a
person approves the newer plan's hash, which applies it and ends the pin.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := controller.ParseName(args[0])
			if err != nil {
				return err
			}
			if to == "" {
				return refusedf("name the revision with --to REV (piceli controller status %s lists the revisions it ran)", args[0])
			}
			c, err := controller.Connect(cmd.Context(), f.target())
			if err != nil {
				return err
			}
			req, err := controller.Rollback(cmd.Context(), c, key, to, controller.RollbackOptions{Reason: reason})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, req)
			}
			cmd.Printf("release %s/%s pinned to %s by %s; the controller plans it within one interval (approve its plan as usual)\n", req.Namespace, req.Name, req.Revision, req.By)
			if req.Latest != "" && req.Latest != req.Revision {
				cmd.Printf("the source's latest revision %s is planned and shown, not applied, until piceli controller unpin %s/%s\n", req.Latest, req.Namespace, req.Name)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", usageTo+"the source revision to pin: REF@ID, ID, or 12+ leading hex digits of the ID")
	cmd.Flags().StringVar(&reason, "reason", "", "why, written into the pin for everyone to read")
	outputFlag(cmd, &output)
	return cmd
}

func newControllerUnpinCmd() *cobra.Command {
	var f controllerTarget
	var output string
	cmd := &cobra.Command{
		Use:   "unpin NAMESPACE/NAME --kubeconfig F --context C [-o json]",
		Short: "Remove a Release's pin: its latest revision is applied again",
		Long: `Remove a Release's pin: its latest revision is applied again.

Steps:
  1. read the Release; refuse (exit 2, nothing written) when there is none
     or it is not pinned
  2. remove spec.pin, if it still pins the revision read

The controller then plans the source's latest revision as usual; its plan
still needs its approval, by hash or by the policy.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, key, err := connectRelease(cmd, f, args[0])
			if err != nil {
				return err
			}
			req, err := controller.Unpin(cmd.Context(), c, key)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, req)
			}
			cmd.Printf("release %s/%s is no longer pinned to %s; the controller plans its latest revision within one interval\n", req.Namespace, req.Name, req.Revision)
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}

func newControllerStopCmd() *cobra.Command {
	var f controllerTarget
	var output string
	cmd := &cobra.Command{
		Use:   "stop NAMESPACE/NAME --kubeconfig F --context C [-o json]",
		Short: "Stop a Release's running apply after its writes in flight",
		Long: `Stop a Release's running apply after its writes in flight.

Steps:
  1. read the Release; refuse (exit 2, nothing written) when there is none,
     or when no run of its release holds the release's Lease
  2. write the stop request on that Lease, for that run alone

The run finds the request between its writes, at its next wave or within
seconds of a readiness wait, lets the writes in flight settle and ends
"stopped". The controller does not resume it: the Release shows Stalled,
reason Stopped, with the run, and the next plan runs once a person approves
it by hash (piceli controller approve) or asks for piceli controller sync.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := controller.ParseName(args[0])
			if err != nil {
				return err
			}
			req, err := controller.Stop(cmd.Context(), f.target(), key)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, req)
			}
			cmd.Printf("asked run %s of release %s/%s (%s) to stop through %s; it stops once its writes in flight settle\n", req.Run, req.Namespace, req.Name, req.Holder, req.Through)
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}
