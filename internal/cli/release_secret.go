package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pynenc/piceli/internal/secret"
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
	spec     string
	version  int
	reveal   bool
	toStdout bool
}

func newSecretShowCmd() *cobra.Command {
	var f secretShowFlags
	cmd := &cobra.Command{
		Use:   "show NAME --spec release.toml [--version N] [--reveal [--stdout]]",
		Short: "Show a secret version's metadata; its values only when asked",
		Long: `Show a version of a declared secret from the release's private store.

Steps:
  1. load the version (the latest, or --version N) from state_dir/secrets
  2. print its number, creation time, keys and where each value came from
  3. only with --reveal: print the values, to a terminal; to send them to a
     pipe or file, add --stdout as well

No cluster is contacted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := loadSecretVersion(f, args[0])
			if err != nil {
				return err
			}
			cmd.Println(secret.Show(v))
			if !f.reveal {
				return nil
			}
			return reveal(cmd, v, f.toStdout)
		},
	}
	cmd.Flags().StringVar(&f.spec, "spec", "release.toml", "release spec file")
	cmd.Flags().IntVar(&f.version, "version", 0, "version to show (default: the latest)")
	cmd.Flags().BoolVar(&f.reveal, "reveal", false, "print the values too (to a terminal only, unless --stdout)")
	cmd.Flags().BoolVar(&f.toStdout, "stdout", false, "with --reveal, print values even when stdout is not a terminal")
	return cmd
}

func loadSecretVersion(f secretShowFlags, name string) (*secret.Version, error) {
	s, err := readSpec(f.spec)
	if err != nil {
		return nil, err
	}
	store := secret.View(s.Release.StateDir)
	if f.version > 0 {
		v, err := store.Load(name, f.version)
		if err != nil {
			return nil, refused(err)
		}
		return v, nil
	}
	v, err := store.Latest(name)
	switch {
	case err != nil:
		return nil, refused(err)
	case v == nil:
		return nil, refusedf("secret %q has no versions in %s (plan the release first)", name, s.Release.StateDir)
	}
	return v, nil
}

// reveal prints the values, refusing a non-terminal stdout unless asked.
func reveal(cmd *cobra.Command, v *secret.Version, toStdout bool) error {
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
