package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/refusal"
)

// Names of the controller's release and objects.
const (
	// DefaultNamespace is the controller's namespace unless Options says
	// otherwise.
	DefaultNamespace = "piceli-system"
	// ReleaseName is the name of the controller's own release.
	ReleaseName = "piceli-controller"
	// Name names the controller's ServiceAccount, Deployment, ClusterRole,
	// Role and their bindings.
	Name = "piceli-controller"
	// MetricsService is the Service in front of the replicas' metrics.
	MetricsService = "piceli-controller-metrics"
	// StateKeySecret is the Secret holding the controller's state signing
	// key, under StateKeyKey.
	StateKeySecret = "piceli-controller-state-key"
	StateKeyKey    = "key"
	// StateKeyDir is where the replicas mount StateKeySecret, read-only:
	// the key is the file StateKeyDir/StateKeyKey, the controller's
	// default --state-key-file.
	StateKeyDir = "/etc/piceli/state-key"
	// KeyFile is the name of the state signing key file in Options.Dir.
	KeyFile = "state-signing.key"
	// Replicas is how many replicas run; one leads at a time.
	Replicas = 2
	// User is the uid and gid the controller runs as: not root.
	User = 65532
	// MetricsPort and ProbePort are the controller's Prometheus metrics
	// and /healthz, /readyz ports.
	MetricsPort = 8080
	ProbePort   = 8081
)

// Options describe the controller to install. Kubeconfig and Context are
// required; Image too for an install.
type Options struct {
	// Kubeconfig and Context name the cluster, as every Piceli command
	// does: never $KUBECONFIG or a current-context.
	Kubeconfig string
	Context    string
	// Namespace is the controller's own namespace; empty means
	// DefaultNamespace. It holds nothing but the controller: default and
	// the kube-* namespaces are refused.
	Namespace string
	// Image is the piceli-controller image, pinned by digest
	// (name@sha256:<64 hex>).
	Image string
	// APIServer, when set, is where the replicas reach the API server
	// instead of the kubernetes Service (https://IP:PORT), for clusters
	// whose pods cannot reach its ClusterIP (the sandbox's real node).
	// APIServerName is then the name the API server's certificate is
	// checked against (controller.APIServerNameEnv); it needs APIServer.
	APIServer     string
	APIServerName string
	// Dir holds the release's files: the state signing key (KeyFile), the
	// release.toml, the artifact and the release's state. Empty means
	// DefaultDir(Context, Namespace).
	Dir string
}

// namespace is o's namespace, defaulted.
func (o Options) namespace() string {
	if o.Namespace == "" {
		return DefaultNamespace
	}
	return o.Namespace
}

var pinnedImage = regexp.MustCompile(`^[^@\s]+@sha256:[0-9a-f]{64}$`)

// check refuses bad options (refusal.Is), naming the option; install says
// whether Image and the API server are checked.
func (o Options) check(install bool) error {
	ns := o.namespace()
	switch {
	case o.Kubeconfig == "" || o.Context == "":
		return refusal.Errorf("controller: name the kubeconfig file and its context: piceli never guesses a cluster")
	case len(validation.IsDNS1123Label(ns)) > 0:
		return refusal.Errorf("controller: namespace %q is not a DNS-1123 label (lower-case letters, digits and '-', at most 63)", ns)
	case ns == "default" || strings.HasPrefix(ns, "kube-"):
		return refusal.Errorf("controller: namespace %q is shared with other workloads; the controller gets a namespace of its own (default %s)", ns, DefaultNamespace)
	}
	if !install {
		return nil
	}
	if !pinnedImage.MatchString(o.Image) {
		return refusal.Errorf("controller: image %q must be pinned by digest (name@sha256:<64 hex>), as piceli artifacts build names it", o.Image)
	}
	return o.checkAPIServer()
}

// checkAPIServer refuses an API server override that is not https://IP:PORT,
// or a server name without it or not a DNS name.
func (o Options) checkAPIServer() error {
	if o.APIServer == "" {
		if o.APIServerName != "" {
			return refusal.Errorf("controller: --api-server-name needs --api-server")
		}
		return nil
	}
	if _, _, err := o.apiServerHostPort(); err != nil {
		return refusal.Errorf("controller: API server %q: %v", o.APIServer, err)
	}
	if n := o.APIServerName; n != "" && len(validation.IsDNS1123Subdomain(n)) > 0 {
		return refusal.Errorf("controller: API server name %q is not a DNS name", n)
	}
	return nil
}

// apiServerHostPort splits APIServer, https://IP:PORT, into IP and port.
func (o Options) apiServerHostPort() (string, string, error) {
	u, err := url.Parse(o.APIServer)
	if err != nil || u.Scheme != "https" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("want https://IP:PORT")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || net.ParseIP(host) == nil {
		return "", "", fmt.Errorf("want https://IP:PORT, with an IP address")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("port %q out of range 1-65535", port)
	}
	return host, port, nil
}

// DefaultDir is the directory of the controller's release for a kubeconfig
// context and namespace: <user config dir>/piceli/controllers/<context,
// made safe for a file name>.<namespace>-<8 hex of both>. One context and
// namespace have one such directory on a machine, and so one state
// signing key.
func DefaultDir(kubeContext, namespace string) (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("controller: no user config directory for its key and state: %w; pass --dir", err)
	}
	return filepath.Join(base, "piceli", "controllers", dirName(kubeContext, namespace)), nil
}

// dirName is a file name for a context and namespace: the context with
// every byte but letters, digits, '.', '_' and '-' replaced by '_', at
// most 64 of them, then the namespace and a hash of both, so two contexts
// that look alike once made safe still differ.
func dirName(kubeContext, namespace string) string {
	safe := []byte(kubeContext)
	for i, c := range safe {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			safe[i] = '_'
		}
	}
	if len(safe) > 64 {
		safe = safe[:64]
	}
	sum := sha256.Sum256([]byte(kubeContext + "\x00" + namespace))
	return string(safe) + "." + namespace + "-" + hex.EncodeToString(sum[:4])
}

// dir is o.Dir or the default one, absolute.
func (o Options) dir() (string, error) {
	d := o.Dir
	if d == "" {
		var err error
		if d, err = DefaultDir(o.Context, o.namespace()); err != nil {
			return "", err
		}
	}
	return filepath.Abs(d)
}
