package cli

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newStateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Show, pull, export, import or migrate the release's state, or print this machine's signing key",
		Long: `Work with the release's state: its plans, runs and their journals,
revisions, digest key and private secret versions. With [release] state =
"cluster" it lives in the target cluster as labelled, chunked Secrets,
signed by the machine that wrote them with a key [release] state_signers
lists, and state_dir is a cache; with state = "local" state_dir is the
only copy. See docs/state.md.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newStateKeyCmd(), newStateShowCmd(), newStatePullCmd(), newStateExportCmd(), newStateImportCmd(), newStateMigrateCmd())
	return cmd
}

func newStateShowCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "show --spec release.toml [-o json]",
		Short: "Say where the state is kept and what the cluster holds",
		Long: `Say where the release's state is kept.

Steps:
  1. count the files of the state directory
  2. for state = "cluster": read the manifest Secret, verify the current
     snapshot's signature and check every chunk of it against its digest,
     and print both snapshots (generation, size, chunks, writer, signer)
     and what is wrong or missing, if anything

Nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			info, err := r.State().Show(cmd.Context())
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.NewStateInfoDoc(info))
			}
			printState(cmd, info)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func printState(cmd *cobra.Command, info *release.StateInfo) {
	cmd.Printf("state: %s, state directory %s (%d files)\n", info.Mode, info.Cache, info.Files)
	if info.Mode != "cluster" {
		return
	}
	for _, s := range []struct {
		name string
		snap *release.StateSnapshot
	}{{"current", info.Current}, {"previous", info.Previous}} {
		if s.snap != nil {
			cmd.Printf("%s: generation %d, %d files, %d bytes in %d chunks, written by %s (lease transition %d), signed by %s\n",
				s.name, s.snap.Generation, s.snap.Files, s.snap.Size, len(s.snap.Chunks), s.snap.Writer, s.snap.Transitions, cmp.Or(s.snap.Signer, "nobody"))
		}
	}
	if info.Current == nil {
		cmd.Printf("the cluster holds no state in namespace %s yet\n", info.Namespace)
	}
	if info.Problem != "" {
		cmd.Printf("problem: %s\n", info.Problem)
	}
}

func newStatePullCmd() *cobra.Command {
	var f targetFlags
	var acceptOlder int64
	var output string
	cmd := &cobra.Command{
		Use:   "pull --spec release.toml [--accept-older GENERATION] [-o json]",
		Short: "Bring the state directory up to date from the cluster",
		Long: `Bring the state directory (the cache) up to date from the cluster.

Steps:
  1. read the manifest and verify the current snapshot's signature: a key
     of [release] state_signers, over this release, namespace and cluster;
     an unsigned or untrusted snapshot is refused and nothing is merged
  2. refuse a snapshot older than the newest this machine has seen (a
     restored backup, or a replay), or no state where it has seen one,
     unless --accept-older names exactly that generation (0: no state)
  3. read every chunk of the snapshot, checking digests; a torn snapshot
     is refused, naming what is missing, and the previous complete one is
     used (verified the same way)
  4. merge it into the state directory: files written here and not pushed
     yet are kept; a journal this machine appended to is kept`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			var opts release.PullStateOptions
			if cmd.Flags().Changed("accept-older") {
				if acceptOlder < 0 {
					return refusedf("--accept-older %d: want a generation, 0 or more", acceptOlder)
				}
				opts.AcceptOlder = &acceptOlder
			}
			got, err := r.State().Pull(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if got.Refused != "" {
				cmd.PrintErrf("refused a torn snapshot: %s\n", got.Refused)
			}
			if output == "json" {
				return writeJSON(cmd, got)
			}
			cmd.Printf("pulled generation %d: %d files, %d changed\n", got.Generation, got.Files, got.Changed)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	cmd.Flags().Int64Var(&acceptOlder, "accept-older", 0, "accept the cluster's state although it is older than what this machine has seen: exactly this generation (0: no state)")
	return cmd
}

func newStateKeyCmd() *cobra.Command {
	var output, name string
	cmd := &cobra.Command{
		Use:   "key [--signer NAME] [-o json]",
		Short: "Print this machine's state signing key line, creating the key if missing",
		Long: `Print the line that lets this machine write a release's shared state:
paste it into [release] state_signers of release.toml.

Steps:
  1. find this machine's signing key: the file $PICELI_STATE_KEY_FILE
     names, or <user config dir>/piceli/state-signing.key
  2. create it when missing: a fresh ed25519 key, owner-only (0600) in a
     0700 directory; a key file open to group or others, or not a regular
     file, is refused
  3. print "ed25519:<base64 public key> NAME" (NAME: --signer, or user@host)

The private key never leaves the file. Each machine and CI runner that
plans, applies or pushes state has its own key; readers need none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := release.MachineStateKey("", name)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.NewStateKeyDoc(k))
			}
			if k.Created {
				cmd.PrintErrf("created this machine's state signing key %s\n", k.File)
			}
			cmd.Println(k.Signer)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	cmd.Flags().StringVar(&name, "signer", "", "the name on the signer line (default: user@host)")
	return cmd
}

// passphraseFlag reads an export's passphrase from a file, never from the
// command line (where other users and shell history would see it).
type passphraseFlag struct{ file string }

func (p *passphraseFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.file, "passphrase-file", "", "file holding the passphrase (required; at least 12 characters)")
}

func (p *passphraseFlag) read() (string, error) {
	if p.file == "" {
		return "", refused(fmt.Errorf("--passphrase-file is required: a state export is always encrypted"))
	}
	phrase, err := release.ReadPassphraseFile(p.file)
	if err != nil {
		return "", refused(fmt.Errorf("read --passphrase-file: %w", err))
	}
	return phrase, nil
}

func newStateExportCmd() *cobra.Command {
	var f targetFlags
	var pass passphraseFlag
	var out, output string
	cmd := &cobra.Command{
		Use:   "export --spec release.toml --out DIR --passphrase-file FILE [-o json]",
		Short: "Write the whole state to a file, encrypted with age",
		Long: `Write the release's whole state to one file, DIR/RELEASE.state.age,
encrypted with age (scrypt, from the passphrase in --passphrase-file).
Never written in plain.

Steps:
  1. for state = "cluster": pull the state first
  2. pack the state directory and encrypt it into --out (mode 0600)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if out == "" {
				return refusedf("--out DIR is required")
			}
			phrase, err := pass.read()
			if err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			exp, err := r.State().ExportTo(cmd.Context(), out, phrase)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, exp)
			}
			cmd.Printf("exported the state of %s to %s (age-encrypted, %d bytes)\n", exp.Release, exp.File, exp.Bytes)
			return nil
		},
	}
	f.register(cmd)
	pass.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", usageOutDir+"the encrypted state into (required)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func newStateImportCmd() *cobra.Command {
	var f targetFlags
	var pass passphraseFlag
	var output string
	cmd := &cobra.Command{
		Use:   "import FILE --spec release.toml --passphrase-file FILE [-o json]",
		Short: "Merge an encrypted export into the state",
		Long: `Merge a file written by "piceli state export" into the release's state.

Steps:
  1. decrypt FILE with the passphrase; a wrong one or a damaged file is
     refused before anything is written
  2. refuse an export of another release
  3. merge it into the state directory under the file lock, and for
     state = "cluster" push it under the release's Lease`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			phrase, err := pass.read()
			if err != nil {
				return err
			}
			in, err := release.OpenStateExport(args[0])
			if err != nil {
				return refused(err)
			}
			defer in.Close()
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			if err := r.State().Import(cmd.Context(), in, phrase); err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.StateImported{Schema: release.StateImportedSchema, Release: r.Name(), File: args[0]})
			}
			cmd.Printf("imported %s into the state of %s\n", args[0], r.Name())
			return nil
		},
	}
	f.register(cmd)
	pass.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func newStateMigrateCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "migrate cluster|local --spec release.toml [-o json]",
		Short: "Move the release's state between the cluster and state_dir",
		Long: `Move the release's state between modes.

Steps:
  1. take the release's Lease (its namespace must exist)
  2. cluster: push the state directory to the cluster;
     local: pull the newest complete snapshot into the state
     directory, then delete the state Secrets
  3. say how to set [release] state in the spec (it is not edited)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to := args[0]
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			next, err := r.State().Migrate(cmd.Context(), to)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, release.StateMigrated{Schema: release.StateMigratedSchema, Release: r.Name(), To: to, Next: next})
			}
			cmd.Printf("moved the state of %s to %s; %s\n", r.Name(), to, next)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}
