package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/observe"
)

func newForwardSaveCmd() *cobra.Command {
	var c clusterFlags
	var p prefsFlags
	var fw observe.Forward
	cmd := &cobra.Command{
		Use:   "forward-save NAME --user U --namespace NS --target service/x|deployment/x|pod/x --local-port L --remote-port R --kubeconfig F --context C",
		Short: "Save a port-forward preference for a user",
		Long: `Save (or replace) a user's port-forward preference. Preferences are not
secret; each user has one owner-only file. A preference is scoped to the
cluster (its kube-system UID), the context and the namespace it is saved
for, and runs nowhere else. It binds loopback only (--address 127.0.0.1 or
::1) and a local port of 1024 or more.

Steps:
  1. check the preference (bad input: exit 2, nothing saved)
  2. read the cluster's identity
  3. write the user's file atomically, owner-only`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fw.Name = args[0]
			prefs, err := p.prefs(true)
			if err != nil {
				return err
			}
			if err := fw.Validate(); err != nil {
				return err
			}
			cl, err := c.connect(cmd)
			if err != nil {
				return err
			}
			f, err := observe.NewForwarder(cmd.Context(), cl)
			if err != nil {
				return err
			}
			if err := prefs.Save(p.user, f.Scope(fw)); err != nil {
				return err
			}
			cmd.Printf("saved forward %s for %s: %s:%d -> %s/%s:%d\n", fw.Name, p.user, fw.Address, fw.LocalPort, fw.Namespace, fw.Target, fw.RemotePort)
			return nil
		},
	}
	c.register(cmd)
	p.register(cmd, true)
	cmd.Flags().StringVar(&fw.Namespace, "namespace", "", usageNamespace+"target")
	cmd.Flags().StringVar(&fw.Target, "target", "", usageTarget+": service/NAME, deployment/NAME or pod/NAME")
	cmd.Flags().StringVar(&fw.Address, "address", "127.0.0.1", usageAddress)
	cmd.Flags().IntVar(&fw.LocalPort, "local-port", 0, "local port (1024 or more)")
	cmd.Flags().IntVar(&fw.RemotePort, "remote-port", 0, "port of the target (a Service port, or a container port)")
	return cmd
}

func newForwardListCmd() *cobra.Command {
	var p prefsFlags
	var output string
	cmd := &cobra.Command{
		Use:   "forward-list --user U [-o json]",
		Short: "List a user's saved port-forward preferences",
		Long: `List a user's saved port-forward preferences.

Steps:
  1. read the user's owner-only preferences file (no cluster is contacted;
     a file others may read is refused)
  2. print each forward, or one JSON document with -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			prefs, err := p.prefs(true)
			if err != nil {
				return err
			}
			fs, err := prefs.List(p.user)
			if err != nil {
				return err
			}
			if fs == nil {
				fs = []observe.Forward{}
			}
			if output == "json" {
				return writeJSON(cmd, observe.NewForwardsDoc(p.user, fs))
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLOCAL\tTARGET\tCONTEXT\tCLUSTER")
			for _, f := range fs {
				fmt.Fprintf(tw, "%s\t%s:%d\t%s/%s:%d\t%s\t%s\n", f.Name, f.Address, f.LocalPort, f.Namespace, f.Target, f.RemotePort, f.Context, f.ClusterUID)
			}
			return tw.Flush()
		},
	}
	p.register(cmd, true)
	outputFlag(cmd, &output)
	return cmd
}

func newForwardDeleteCmd() *cobra.Command {
	var p prefsFlags
	cmd := &cobra.Command{
		Use:   "forward-delete NAME --user U",
		Short: "Delete a user's saved port-forward preference",
		Long: `Delete a user's saved port-forward preference.

Steps:
  1. read the user's preferences file (no cluster is contacted)
  2. refuse (exit 2) an unknown name; otherwise write the file without it,
     atomically`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			prefs, err := p.prefs(true)
			if err != nil {
				return err
			}
			if err := prefs.Delete(p.user, name); err != nil {
				return err
			}
			cmd.Printf("deleted forward %s of %s\n", name, p.user)
			return nil
		},
	}
	p.register(cmd, true)
	return cmd
}

func newForwardRunCmd() *cobra.Command {
	var c clusterFlags
	var p prefsFlags
	cmd := &cobra.Command{
		Use:   "forward-run NAME --user U --kubeconfig F --context C",
		Short: "Run a saved port-forward until interrupted",
		Long: `Run a user's saved port-forward through the API server until interrupted.

Steps:
  1. read the preference
  2. refuse (exit 2) unless the cluster and context are the ones it was
     saved for
  3. listen on its loopback address and forward to a ready pod of its
     target, moving to another when that pod goes, until Ctrl-C`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prefs, err := p.prefs(true)
			if err != nil {
				return err
			}
			saved, err := prefs.Get(p.user, args[0])
			if err != nil {
				return err
			}
			cl, err := c.connect(cmd)
			if err != nil {
				return err
			}
			fw, err := observe.NewForwarder(cmd.Context(), cl)
			if err != nil {
				return err
			}
			defer fw.Close()
			st, err := fw.Start(saved)
			if err != nil {
				return err
			}
			cmd.Printf("forwarding %s: %s -> %s/%s:%d (Ctrl-C to stop)\n", st.Name, st.Local, st.Namespace, st.Target, st.RemotePort)
			<-cmd.Context().Done()
			return nil
		},
	}
	c.register(cmd)
	p.register(cmd, true)
	return cmd
}
