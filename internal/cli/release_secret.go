package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pynenc/piceli/release"
)

func newSecretCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Inspect the release's private secret versions",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newSecretShowCmd())
	return cmd
}

// secretShowFlags are the flags of "release secret show".
type secretShowFlags struct {
	targetFlags
	version  int
	reveal   bool
	toStdout bool
	output   string
}

func newSecretShowCmd() *cobra.Command {
	var f secretShowFlags
	cmd := &cobra.Command{
		Use:   "show NAME --spec release.toml [--version N] [--reveal [--stdout] | -o json]",
		Short: "Show a secret version's metadata; its values only when asked",
		Long: `Show a version of a declared secret from the release's private store.

Steps:
  1. load the version (the latest, or --version N) from state_dir/secrets
  2. print its number, creation time, keys and where each value came from
  3. only with --reveal: print the values, to a terminal; to send them to a
     pipe or file, add --stdout as well

With -o json it prints the metadata as one document (piceli.secret-version/v1):
key names and fingerprints, never a value; -o json refuses --reveal.

No cluster is contacted, unless [release] state = "cluster": then the state
directory is brought up to date from it first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			if f.output == "json" && f.reveal {
				return refusedf("-o json prints a secret version's metadata only: drop --reveal")
			}
			v, err := loadSecretVersion(cmd, f, args[0])
			if err != nil {
				return err
			}
			if f.output == "json" {
				return writeJSON(cmd, v.Doc())
			}
			cmd.Println(v)
			if !f.reveal {
				return nil
			}
			return reveal(cmd, v, f.toStdout)
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&f.version, "version", 0, "version to show (default: the latest)")
	cmd.Flags().BoolVar(&f.reveal, "reveal", false, "print the values too (to a terminal only, unless --stdout)")
	cmd.Flags().BoolVar(&f.toStdout, "stdout", false, "with --reveal, print values even when stdout is not a terminal")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", usageOutput)
	return cmd
}

func loadSecretVersion(cmd *cobra.Command, f secretShowFlags, name string) (*release.SecretVersion, error) {
	r, err := f.open(cmd, release.Options{})
	if err != nil {
		return nil, err
	}
	return r.Secrets().Version(cmd.Context(), name, f.version)
}

// reveal prints the values, refusing a non-terminal stdout unless asked.
func reveal(cmd *cobra.Command, v *release.SecretVersion, toStdout bool) error {
	out, isFile := cmd.OutOrStdout().(*os.File)
	if !toStdout && !(isFile && term.IsTerminal(int(out.Fd()))) {
		return refusedf("stdout is not a terminal: add --stdout to print secret values to it")
	}
	values := v.Values()
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(cmd.OutOrStdout(), "%s=%s\n", k, values[k])
	}
	return nil
}
