package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/release"
)

func newRenderCmd() *cobra.Command {
	var sf specFlag
	var out, format, diffEnv string
	cmd := &cobra.Command{
		Use:   "render --spec release.toml [--env NAME] [-o yaml|json] [--out DIR]",
		Short: "Render manifests without a cluster",
		Long: `Render the composition of a release spec into Kubernetes manifests.

Steps:
  1. read and validate the release spec
  2. load the composition: compile and run a Go composition (cached by its
     inputs), or read YAML/JSON files
  3. give namespaced objects the target namespace, drop status, server fields
     and secret values, and order objects by apply stage
  4. print YAML or JSON, or write one file per object with --out

Render never contacts a cluster, and the same inputs give byte-identical output.

With --env A --diff-env B it renders both environments and prints what differs:
first the values and images, then per object the field paths that differ
(never a value of a Secret); -o json prints the piceli.env-diff/v1 document.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if diffEnv != "" {
				return printEnvDiff(cmd, sf, diffEnv, format, out)
			}
			f, err := render.ParseFormat(format)
			if err != nil {
				return refused(err)
			}
			r, err := sf.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			objs, err := r.Render(cmd.Context(), release.RenderOptions{})
			if err != nil {
				return err
			}
			if out == "" {
				return render.Write(cmd.OutOrStdout(), objs, f)
			}
			names, err := render.WriteDir(out, objs, f)
			if err != nil {
				return err
			}
			cmd.PrintErrf("wrote %d manifests to %s\n", len(names), out)
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().StringVarP(&format, "output", "o", "yaml", "output format: yaml or json")
	cmd.Flags().StringVar(&out, "out", "", usageOutDir+"one file per object into")
	cmd.Flags().StringVar(&diffEnv, "diff-env", "", "compare the --env environment with this one and print what differs")
	return cmd
}

// printEnvDiff prints how the --env environment differs from diffEnv.
func printEnvDiff(cmd *cobra.Command, sf specFlag, diffEnv, format, out string) error {
	switch {
	case out != "":
		return refusedf("--diff-env prints a comparison; it writes no --out directory")
	case cmd.Flags().Changed("output") && format != "json":
		return refusedf("with --diff-env, -o takes json (or nothing, for text), not %q", format)
	}
	d, err := release.DiffEnvironments(cmd.Context(), sf.spec, sf.env, diffEnv, release.Options{Log: cmd.ErrOrStderr()})
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(cmd, d)
	}
	d.Write(cmd.OutOrStdout())
	return nil
}
