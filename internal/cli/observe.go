package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/observe"
)

func newObserveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "observe",
		Short: "The operations lens: a read-only view of a session and its cluster",
		Long: `The operations lens: reconcile a session archive ("piceli release archive")
with a cluster, keep per-user port-forward preferences, tail logs, and serve
the same model as a loopback REST API with a browser UI. It is read-only: it
adopts, changes and deletes nothing in the cluster.`,
	}
	cmd.AddCommand(newObserveStatusCmd(), newForwardSaveCmd(), newForwardListCmd(), newForwardDeleteCmd(),
		newForwardRunCmd(), newLogsRunCmd(), newObserveServeCmd())
	return cmd
}

// clusterFlags name the cluster a lens command reads.
type clusterFlags struct {
	kubeconfig, context string
	allowExec           bool
}

func (f *clusterFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", usageKubeconfig)
	cmd.Flags().StringVar(&f.context, "context", "", usageContext)
	cmd.Flags().BoolVar(&f.allowExec, "allow-exec", false, usageAllowExec)
}

// connect opens the cluster and says which server and context it uses.
func (f *clusterFlags) connect(cmd *cobra.Command) (*observe.Cluster, error) {
	cl, err := observe.Connect(cmd.Context(), observe.Target{Kubeconfig: f.kubeconfig, Context: f.context, AllowExec: f.allowExec})
	if err != nil {
		return nil, err
	}
	cmd.PrintErrln(cl.Using())
	return cl, nil
}

// prefsFlags name whose forward preferences, and where they are kept.
type prefsFlags struct {
	user, dir string
}

func (f *prefsFlags) register(cmd *cobra.Command, required bool) {
	usage := usageUser
	if !required {
		usage += " (optional)"
	}
	cmd.Flags().StringVar(&f.user, "user", "", usage)
	cmd.Flags().StringVar(&f.dir, "prefs-dir", "", "directory of the preference files (default: the user configuration directory's piceli/forwards)")
}

func (f *prefsFlags) prefs(required bool) (observe.Prefs, error) {
	if required && f.user == "" {
		return observe.Prefs{}, refusedf("--user is required")
	}
	dir := f.dir
	if dir == "" {
		d, err := observe.DefaultPrefsDir()
		if err != nil {
			return observe.Prefs{}, err
		}
		dir = d
	}
	return observe.Prefs{Dir: dir}, nil
}

// outputFlag is -o text|json.
func outputFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVarP(v, "output", "o", "text", usageOutput)
}

// errUnhealthy ends observe status with exit 1.
var errUnhealthy = errors.New("not every declared object is present and ready")

func unhealthy(r *observe.Report) error {
	if r.Healthy() {
		return nil
	}
	if !r.Cluster.Same {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s", r.Cluster.Message)}
	}
	return &ExitError{Code: ExitFailed, Err: errUnhealthy}
}
