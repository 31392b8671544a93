package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
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
		WithOptions(ctrlcontroller.Options{MaxConcurrentReconciles: 4, SkipNameValidation: ptr.To(true)}).
		Complete(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(logWriter(o.Log), "piceli-controller %s in namespace %s; state signer: %s\n", o.Identity, o.Namespace, r.Signer)
	return mgr.Start(ctx)
}

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
	return cfg, nil
}

// cacheOptions watches only namespaces, when it names any.
func cacheOptions(namespaces []string) cache.Options {
	if len(namespaces) == 0 {
		return cache.Options{}
	}
	o := cache.Options{DefaultNamespaces: map[string]cache.Config{}}
	for _, ns := range namespaces {
		o.DefaultNamespaces[ns] = cache.Config{}
	}
	return o
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
