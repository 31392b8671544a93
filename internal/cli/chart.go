package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newChartCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chart",
		Short: "Hand the release over as a Helm chart",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newChartExportCmd())
	return cmd
}

func newChartExportCmd() *cobra.Command {
	var sf specFlag
	var out, output, version string
	cmd := &cobra.Command{
		Use:   "export --spec release.toml --out DIR [-o json]",
		Short: "Write the rendered release as a Helm chart with a generated values schema",
		Long: `Write the rendered release as a Helm chart.

Steps:
  1. read the spec and render the composition (as "piceli render" does)
  2. take its values out of the objects: images (the spec's [images]),
     replicas and resources of workloads, Ingress hosts, ConfigMap entries
  3. write Chart.yaml, values.yaml, a values.schema.json that refuses every
     key values.yaml does not have, and one template per object (Secrets as
     declarations, without values) into --out

"helm template" of the chart gives the objects "piceli render" gives.
Export never contacts a cluster.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := sf.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			if out == "" {
				return refusedf("chart export needs --out DIR, the directory to write the chart into")
			}
			res, err := r.ExportChart(cmd.Context(), out, release.ChartOptions{Version: version})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, res)
			}
			cmd.Printf("wrote a chart of %d files to %s\ntry it with: helm template %s %s\n", len(res.Files), res.Dir, r.Name(), res.Dir)
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", usageOutDir+"the chart into")
	cmd.Flags().StringVar(&version, "chart-version", "", "the chart's version (default 0.1.0)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
