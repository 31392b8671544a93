package kube

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Client-side rate limits: a token bucket of DefaultQPS requests a second
// that holds at most DefaultBurst. They are a safety net against a client
// loop gone wrong, not the pace of a release: what bounds the load Piceli
// puts on a server is the requests it keeps in flight (plan and apply
// Parallel, 16 by default), and the server's API Priority and Fairness
// queues what it cannot take yet. The bucket is sized never to bind
// before those do: at 200 QPS, the earlier default, it set the pace of the
// whole release (a fresh apply of 1,000 ConfigMaps sent its 4,000 requests
// at exactly 200 a second, 20 s), while the 2-core sandbox's API server
// answers about 300 a second with 16 in flight (docs/performance.md).
// Lower Parallel, not these, to spare a small or shared control plane.
const (
	DefaultQPS   float32 = 2000
	DefaultBurst int     = 4000
)

// Options names the target and how to talk to it. Kubeconfig and Context are
// required; the zero value of every other field is valid.
type Options struct {
	Kubeconfig string // kubeconfig file; never $KUBECONFIG nor ~/.kube/config
	Context    string // context in that file; never its current-context
	// AllowExec permits a user entry that runs an exec credential plugin or
	// an auth provider: those run local programs, so false refuses them.
	AllowExec bool
	QPS       float32 // zero means DefaultQPS
	Burst     int     // zero means DefaultBurst
	// WrapTransport, when set, wraps every request's transport: tests count
	// round trips or inject faults through it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Client is a connection to one target. It is safe for concurrent use.
type Client struct {
	Config      *rest.Config
	Dynamic     dynamic.Interface
	Clientset   kubernetes.Interface               // typed client, for Leases and Secret reads
	Discovery   discovery.CachedDiscoveryInterface // cached in memory for the client's life
	Mapper      *restmapper.DeferredDiscoveryRESTMapper
	Server      string // the API server URL, for "using server … context …" lines
	ContextName string // the context, as named
	// Proxy is the cluster's proxy-url, its user and password removed;
	// empty when requests go straight to Server.
	Proxy string

	kubeconfig string   // the file, as named, for errors
	uid        *uidMemo // ClusterUID's answer, once read; nil reads every time
}

// Connect builds a Client from exactly the named kubeconfig file and context.
// It never reads $KUBECONFIG, ~/.kube/config, in-cluster configuration or the
// file's current-context, and it does not contact the server: the first
// request does. Every error matches ErrTarget.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	cfg, proxy, err := restConfig(opts)
	if err != nil {
		return nil, &TargetError{Op: "connect to", Kubeconfig: opts.Kubeconfig, Context: opts.Context, Err: err}
	}
	c, err := newClient(cfg, opts.Context)
	if err != nil {
		return nil, &TargetError{Op: "connect to", Kubeconfig: opts.Kubeconfig, Context: opts.Context, Err: err}
	}
	c.kubeconfig, c.Proxy = opts.Kubeconfig, proxy
	return c, nil
}

// Using is the line a command prints before it talks to the target:
// "using server URL[ through proxy URL], context NAME (kubeconfig FILE)".
func (c *Client) Using() string {
	through := ""
	if c.Proxy != "" {
		through = " through proxy " + c.Proxy
	}
	return fmt.Sprintf("using server %s%s, context %s (kubeconfig %s)", c.Server, through, c.ContextName, c.kubeconfig)
}

// withLimits applies the client-side rate limits, defaulting zero values.
func withLimits(cfg *rest.Config, opts Options) {
	cfg.QPS, cfg.Burst = opts.QPS, opts.Burst
	if cfg.QPS == 0 {
		cfg.QPS = DefaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	if opts.WrapTransport != nil {
		cfg.Wrap(opts.WrapTransport)
	}
}

// newClient builds the clients over cfg.
func newClient(cfg *rest.Config, contextName string) (*Client, error) {
	var dyn dynamic.Interface
	base, err := dynamic.NewForConfig(cfg)
	if err == nil {
		dyn, err = withFastList(base, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("build dynamic client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("build discovery client: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("build clientset: %w", err)
	}
	cached := memory.NewMemCacheClientWithContext(dc)
	return &Client{
		Config:      cfg,
		Dynamic:     dyn,
		Clientset:   cs,
		Discovery:   cached.(discovery.CachedDiscoveryInterface),
		Mapper:      restmapper.NewDeferredDiscoveryRESTMapperWithContext(cached),
		Server:      cfg.Host,
		ContextName: contextName,
		uid:         &uidMemo{},
	}, nil
}
