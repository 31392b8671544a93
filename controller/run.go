package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// Run starts the controller and blocks until ctx ends: a controller-runtime
// manager with one work queue of Releases, leader election (when asked),
// probes and metrics. Only the leader reconciles.
func Run(ctx context.Context, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	key, keyFile, err := privateKey(o.StateKeyFile, o.WorkDir)
	if err != nil {
		return err
	}
	o.StateKeyFile = keyFile
	cfg, err := restConfig(o)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	log := logger(o.Log)
	ctrl.SetLogger(log)
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                        scheme,
		Logger:                        log,
		Metrics:                       metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:        o.ProbeAddr,
		LeaderElection:                o.LeaderElection,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       o.Namespace,
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cacheOptions(o.Namespaces),
		Client:                        clientOptions(),
	})
	if err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	// Start the RoleBinding informer with the manager, not at the first
	// pass that reads one.
	if _, err := mgr.GetCache().GetInformer(ctx, &rbacv1.RoleBinding{}); err != nil {
		return err
	}
	r := &Reconciler{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Options: o,
		Signer:    key.Signer(signerName(o)).String(),
		Events:    NewEventSink(mgr.GetEventRecorder("piceli-controller")),
		Metrics:   NewMetrics(metrics.Registry),
		NewSource: o.Sources,
	}
	err = builder.ControllerManagedBy(mgr).
		For(&v1alpha1.Release{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Named("release").
		WithOptions(ctrlcontroller.Options{MaxConcurrentReconciles: Workers, SkipNameValidation: ptr.To(true)}).
		Complete(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(logWriter(o.Log), "piceli-controller %s in namespace %s; state signer: %s\n", o.Identity, o.Namespace, r.Signer)
	return mgr.Start(ctx)
}

// Workers is how many Releases the controller passes over at once. On a
// loaded 2-core machine a no-op pass over 200 Releases took 43 s with 4
// and 41 s with 8 (make bench): both were held to five passes a second by
// client-go's default rate limit (see Options.QPS), so more workers only
// cost memory.
const Workers = 4

// restConfig reads exactly the named kubeconfig file and context, as every
// piceli command does, and refuses a user entry that would run a program
// (an exec credential plugin or an auth provider). A token file stays a
// file, which client-go reads again as the kubelet rotates a pod's token.
func restConfig(o Options) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: o.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s: %w", o.Kubeconfig, o.Context, err)
	}
	if cfg.ExecProvider != nil || cfg.AuthProvider != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s: its user runs a credential program, which the controller never does", o.Kubeconfig, o.Context)
	}
	cfg.QPS, cfg.Burst = cmp.Or(o.QPS, DefaultQPS), cmp.Or(o.Burst, DefaultBurst)
	return cfg, nil
}

// cacheOptions are the manager's informers. Releases are cached in the
// watched namespaces only, when Options.Namespaces names any. RoleBindings
// are cached in every namespace (the ClusterRole grants list and watch of
// them), because a watched Release may target a namespace outside the
// watched ones, whose deployer RoleBinding decides. Managed fields are
// dropped from every cached object: nothing reads them, and they are often
// half an object's size.
//
// Secrets are never cached: caching them needs list and watch of every
// Secret in the cluster (a label selector narrows what is stored, not what
// RBAC lets the controller read), while the controller's own roles read no
// Secret. A source's credentials Secret is read, uncached, only by the
// passes of Releases that name one (client.Options.Cache.DisableFor below
// keeps the cached client from ever starting a Secret informer).
func cacheOptions(namespaces []string) cache.Options {
	o := cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			// An empty (not nil) map: every namespace.
			&rbacv1.RoleBinding{}: {Namespaces: map[string]cache.Config{}},
		},
	}
	if len(namespaces) == 0 {
		return o
	}
	o.DefaultNamespaces = map[string]cache.Config{}
	for _, ns := range namespaces {
		o.DefaultNamespaces[ns] = cache.Config{}
	}
	return o
}

// clientOptions keep Secrets out of the cached client (see cacheOptions).
func clientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}}
}

// check refuses options the controller cannot run with.
func (o *Options) check() error {
	switch {
	case o.Kubeconfig == "" || o.Context == "":
		return errors.New("a kubeconfig file and context are required")
	case o.Namespace == "":
		return errors.New("the controller's namespace is required (--namespace or $POD_NAMESPACE)")
	case o.ServiceAccount == "":
		return errors.New("the controller's ServiceAccount is required")
	case o.WorkDir == "":
		return errors.New("a work directory is required")
	case o.StateKeyFile == "":
		return errors.New("a state signing key file is required")
	case o.QPS < 0 || o.Burst < 0:
		return fmt.Errorf("the client rate limit must not be negative (qps %v, burst %d)", o.QPS, o.Burst)
	}
	if o.Identity == "" {
		o.Identity, _ = os.Hostname()
	}
	return os.MkdirAll(o.WorkDir, 0o700)
}

// signerName names the controller's state signer line.
func signerName(o Options) string {
	return "piceli-controller@" + o.Namespace
}

func logWriter(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}

// logger writes controller-runtime's log lines, one per line, to w.
func logger(w io.Writer) logr.Logger {
	out := logWriter(w)
	return funcr.New(func(prefix, args string) {
		if prefix != "" {
			fmt.Fprintln(out, prefix+": "+args)
			return
		}
		fmt.Fprintln(out, args)
	}, funcr.Options{})
}
