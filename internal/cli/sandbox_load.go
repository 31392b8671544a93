package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/sandbox"
)

func newSandboxLoadCmd() *cobra.Command {
	var f sandboxFlags
	var output string
	cmd := &cobra.Command{
		Use:   "load IMAGE_TARBALL|OCI_LAYOUT [-o json]",
		Short: "Import an image into the sandbox's real node",
		Long: `Import an image into the containerd of the sandbox's real node (started with
` + "`piceli sandbox up --real-node`" + `), where pods with imagePullPolicy Never or
IfNotPresent find it: nothing can be pulled from a registry.

Steps:
  1. open the image: an archive (` + "`docker save`" + ` output or an OCI archive, maybe
     gzip-compressed) or an OCI image layout directory, streamed as an archive
  2. import it with ctr into containerd's k8s.io namespace and unpack it
  3. print each image name imported`,
		Args: func(cmd *cobra.Command, args []string) error { return refused(cobra.ExactArgs(1)(cmd, args)) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			sb, err := openSandbox(f.options(cmd.ErrOrStderr()))
			if err != nil {
				return err
			}
			names, err := sb.Load(cmd.Context(), args[0])
			if err != nil {
				return refusedIf(err, sandbox.ErrNotImage, sandbox.ErrNoRealNode, fs.ErrNotExist)
			}
			if output == "json" {
				return writeJSON(cmd, sandbox.LoadDoc{Schema: sandbox.LoadSchema, Name: sb.Layout().Name, Images: append([]string{}, names...)})
			}
			for _, n := range names {
				fmt.Fprintf(cmd.OutOrStdout(), "loaded %s\n", n)
			}
			return nil
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	return cmd
}

// refusedIf makes err exit with ExitRefused when it wraps one of targets:
// refused before any change.
func refusedIf(err error, targets ...error) error {
	for _, t := range targets {
		if errors.Is(err, t) {
			return refused(err)
		}
	}
	return err
}
