package observe

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/client-go/metadata"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/refusal"
)

// Target names a cluster: a kubeconfig file and a context in it, both
// required. Neither $KUBECONFIG, ~/.kube/config nor the file's
// current-context is ever read.
type Target struct {
	Kubeconfig string
	Context    string
	// AllowExec lets the kubeconfig's exec credential plugin run.
	AllowExec bool
	// WrapTransport, when set, wraps every request's transport (tests
	// record the requests the lens makes through it).
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Cluster is a connection to one target. It is safe for concurrent use.
type Cluster struct {
	c    *kube.Client
	meta metadata.Interface
	// Server and Context say which server and context are used.
	Server  string
	Context string
}

// badInput refuses what the caller gave (a missing option, a malformed
// file, a refused address or port): refusal.Is reports it; nothing was
// changed.
func badInput(format string, args ...any) error { return refusal.Errorf(format, args...) }

// Connect opens t; it does not contact the server (the first request
// does). A missing kubeconfig or context, or one the file lacks, is an
// refusal (refusal.Is).
func Connect(ctx context.Context, t Target) (*Cluster, error) {
	if t.Kubeconfig == "" || t.Context == "" {
		return nil, badInput("a kubeconfig file and a context are both required")
	}
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context, AllowExec: t.AllowExec, WrapTransport: t.WrapTransport})
	if err != nil {
		return nil, refusal.New(err)
	}
	m, err := metadata.NewForConfig(c.Config)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", c.Server, err)
	}
	return &Cluster{c: c, meta: m, Server: c.Server, Context: c.ContextName}, nil
}

// Using is the line to print before talking to the cluster: its server,
// its proxy-url if any, its context and its kubeconfig.
func (cl *Cluster) Using() string { return cl.c.Using() }

// identity reads the cluster's kube-system UID.
func (cl *Cluster) identity(ctx context.Context) (kube.Identity, error) {
	return cl.c.Identity(ctx)
}
