package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newGCCmd() *cobra.Command {
	var f specFlag
	var opts release.GCOptions
	var output string
	cmd := &cobra.Command{
		Use:   "gc --spec release.toml [--keep-plans N] [--keep-runs N] [-o json]",
		Short: "Remove the plans, runs and secret versions nothing needs any more",
		Long: `Apply the state directory's retention rule now (every finished run
applies the default rule by itself).

Steps:
  1. take the release's file lock (a run in progress refuses it, exit 2)
  2. keep every revision, every plan a revision names, the newest plans
     (default 50), the newest runs (default 20), the latest run, every run
     resume could continue and its plan, every run that cannot be read,
     and of each secret the newest versions (default 10) plus every version
     a revision uses
  3. remove the rest and print what was removed and kept

No cluster is contacted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return refusedf("unknown output format %q (want text or json)", output)
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			rep, err := r.GC(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.NewGCDoc(rep))
			}
			cmd.Println(rep)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&opts.Plans, "keep-plans", 0, "newest stored plans to keep (0: 50)")
	cmd.Flags().IntVar(&opts.Runs, "keep-runs", 0, "newest runs to keep (0: 20)")
	cmd.Flags().IntVar(&opts.SecretVersions, "keep-secret-versions", 0, "newest versions of each secret to keep (0: 10)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
