package controller

import (
	"io"
	"time"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
)

// Options configure a controller. Kubeconfig and Context name how it
// reaches its cluster: inside a pod, InClusterKubeconfig writes such a file
// from the pod's ServiceAccount.
type Options struct {
	Kubeconfig string
	Context    string
	// Namespace is the controller's own namespace: its Lease for leader
	// election and its signing key live there.
	Namespace string
	// ServiceAccount is the controller's own ServiceAccount in Namespace:
	// a Release's target namespace must bind it to DeployerRole.
	ServiceAccount string
	// WorkDir holds fetched revisions and each release's state cache; it
	// may be emptied at any time (an emptyDir).
	WorkDir string
	// StateKeyFile is the controller's state signing key (PEM PKCS#8
	// ed25519), which signs the runs it pushes to shared state.
	StateKeyFile string
	// MetricsAddr and ProbeAddr are the listen addresses of the Prometheus
	// metrics and of /healthz and /readyz; "0" turns one off.
	MetricsAddr string
	ProbeAddr   string
	// LeaderElection runs reconcilers only in the replica holding the
	// Lease LeaderElectionID in Namespace.
	LeaderElection bool
	// Identity names this replica in leader election and logs; empty
	// means the host name.
	Identity string
	// DefaultInterval is a Release's interval when its spec gives none.
	DefaultInterval time.Duration
	// QPS and Burst are the client-side rate limit of the controller's own
	// client (Releases, their status and events, RoleBindings, source
	// Secrets): a token bucket of QPS requests a second holding Burst.
	// Zero means DefaultQPS and DefaultBurst. Each pass writes a status, so
	// QPS bounds the passes a second (client-go's own default of 5 held a
	// pass over 200 Releases to 40 s).
	QPS   float32
	Burst int
	// FailureBackoff is the wait after a revision's first failed run,
	// doubled after each next one up to MaxBackoff; zero means 30 s.
	FailureBackoff time.Duration
	// Log receives the controller's log lines; nil means standard error.
	Log io.Writer
	// Namespaces, when set, are the only namespaces whose Releases this
	// controller reconciles (one controller per tenant); empty means all.
	Namespaces []string
	// Sources builds a Release's source from its spec and the data of the
	// Secret it names; nil means source.New with default bounds.
	Sources func(v1alpha1.Source, source.Credentials) (source.Source, error)
}

// The controller's client-side rate limit when Options leave it zero.
const (
	DefaultQPS   float32 = 50
	DefaultBurst         = 300
)

// MaxBackoff caps the wait between failed runs of one revision.
const MaxBackoff = time.Hour

// backoff is the wait after the n-th failed run (1-based) of a revision.
func (o Options) backoff(n int32) time.Duration {
	d := o.FailureBackoff
	if d <= 0 {
		d = 30 * time.Second
	}
	for i := int32(1); i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// LeaderElectionID is the name of the Lease the replicas elect a leader
// with, in Options.Namespace.
const LeaderElectionID = "piceli-controller"

// DeployerRole is the ClusterRole a namespace binds, with a RoleBinding in
// that namespace, to the controller's ServiceAccount to let Releases write
// there. Without that RoleBinding a Release targeting the namespace is
// refused, so creating a Release never widens anyone's rights.
const DeployerRole = "piceli-deployer"
