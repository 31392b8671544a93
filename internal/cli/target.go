package cli

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/plan"
)

// targetFlags are the flags of every command that reaches a cluster.
type targetFlags struct {
	spec      string
	allowExec bool
}

func (f *targetFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.spec, "spec", "release.toml", "release spec file")
	cmd.Flags().BoolVar(&f.allowExec, "allow-exec", false, "allow the kubeconfig's exec credential plugin to run")
}

// connect opens the spec's target and says which server and context it
// uses, before anything else reaches the cluster.
func connect(cmd *cobra.Command, l *loaded, allowExec bool) (*kube.Client, error) {
	c, err := kube.Connect(cmd.Context(), kube.Options{Kubeconfig: l.Spec.Target.Kubeconfig, Context: l.Spec.Target.Context, AllowExec: allowExec})
	if err != nil {
		return nil, classify(err)
	}
	cmd.PrintErrf("using server %s, context %s (kubeconfig %s)\n", c.Server, c.ContextName, l.Spec.Target.Kubeconfig)
	return c, nil
}

// classify marks errors that mean bad input (an unusable target, an
// unresolvable object, a dependency cycle, an object the server refuses)
// as refused.
func classify(err error) error {
	var cycle *graph.CycleError
	switch {
	case errors.Is(err, kube.ErrTarget), errors.Is(err, kube.ErrUnresolved), errors.As(err, &cycle), errors.Is(err, plan.ErrRefused):
		return refused(err)
	}
	return err
}

// colorful reports whether output to w should carry ANSI colors: a
// terminal, and NO_COLOR unset.
func colorful(cmd *cobra.Command) bool {
	f, ok := cmd.OutOrStdout().(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == ""
}
