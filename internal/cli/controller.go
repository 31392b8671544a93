package cli

import "github.com/spf13/cobra"

func newControllerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "The controller in the cluster: approve and watch the Releases it delivers",
		Long: `The Piceli controller delivers Releases (piceli.dev/v1alpha1) from an OCI
artifact or a Git repository: it plans each new revision with the same engine
as "piceli release plan", shows the plan in the Release's status and applies
exactly that plan once its hash is approved (or the Release's policy approves
it). See docs/controller.md.`,
	}
	cmd.AddCommand(newControllerApproveCmd(), newControllerStatusCmd())
	return cmd
}
