package cli

import (
	"flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/pynenc/piceli/internal/sandbox"
)

// agentCommand is sandbox.Options.Agent for this binary: the sandbox runs
// its agent by starting this very executable as `piceli sandbox agent`.
func agentCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the piceli executable to run the sandbox agent: %w", err)
	}
	return []string{exe, "sandbox", "agent"}, nil
}

// newSandboxAgentCmd is the hidden command the sandbox starts as its agent
// process; users never run it themselves.
func newSandboxAgentCmd() *cobra.Command {
	var opts sandbox.AgentOptions
	cmd := &cobra.Command{
		Use:    "agent",
		Short:  "Run the sandbox's storage provisioner and load-balancer controller (started by sandbox up)",
		Hidden: true,
		Args:   sandboxNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return refused(fmt.Errorf("sandbox agent: %w", err))
			}
			klog.SetOutput(cmd.ErrOrStderr()) // the agent's log file
			return sandbox.RunAgent(cmd.Context(), opts)
		},
	}
	goFlags := flag.NewFlagSet("agent", flag.ContinueOnError)
	opts.RegisterFlags(goFlags)
	cmd.Flags().AddGoFlagSet(goFlags)
	return cmd
}
