package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/observe"
)

func newLogsRunCmd() *cobra.Command {
	var c clusterFlags
	var opts observe.LogsOptions
	var output string
	cmd := &cobra.Command{
		Use:   "logs-run --namespace NS --target deployment/api [--container C] [--previous] --tail N --kubeconfig F --context C [-o json]",
		Short: "Print a bounded tail of a container's log",
		Long: `Print the last lines of a container's log, from a ready pod of the target,
through the API server. Hard caps, whatever is asked: 10000 lines and 1 MiB
(1048576 bytes, line ends included); older lines are dropped first.

Steps:
  1. find the oldest ready pod of the target (deployment/, statefulset/,
     service/ or pod/NAME)
  2. read the tail of its container's log (the previous instance with
     --previous)
  3. print the lines, or one JSON document with -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cl, err := c.connect(cmd)
			if err != nil {
				return err
			}
			tail, err := observe.Logs(cmd.Context(), cl, opts)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, tail.Doc())
			}
			cmd.PrintErrf("pod %s, container %s\n", tail.Pod, tail.Container)
			if len(tail.Lines) > 0 {
				cmd.Println(strings.Join(tail.Lines, "\n"))
			}
			return nil
		},
	}
	c.register(cmd)
	cmd.Flags().StringVar(&opts.Namespace, "namespace", "", usageNamespace+"target")
	cmd.Flags().StringVar(&opts.Target, "target", "", usageTarget+": deployment/NAME, statefulset/NAME, service/NAME or pod/NAME")
	cmd.Flags().StringVar(&opts.Container, "container", "", "container (default: the pod's default container)")
	cmd.Flags().BoolVar(&opts.Previous, "previous", false, "read the previous instance of the container")
	cmd.Flags().IntVar(&opts.Lines, "tail", observe.DefaultTailLines, "lines to print at most (capped at 10000)")
	cmd.Flags().IntVar(&opts.Bytes, "limit-bytes", 0, "bytes to print at most (default and cap: 1048576)")
	outputFlag(cmd, &output)
	return cmd
}
