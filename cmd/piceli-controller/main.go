// Command piceli-controller is the Piceli controller: it reconciles the
// piceli.dev/v1alpha1 Releases of its cluster (package controller). It is
// meant to run in a pod, installed by `piceli controller install`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pynenc/piceli/controller"
)

func main() {
	var o controller.Options
	// Its own flag set: controller-runtime registers a --kubeconfig of its
	// own on the global one.
	flag := flag.NewFlagSet("piceli-controller", flag.ContinueOnError)
	flag.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty: the pod's ServiceAccount (written into --work-dir)")
	flag.StringVar(&o.Context, "context", "", "context in --kubeconfig")
	flag.StringVar(&o.Namespace, "namespace", os.Getenv("POD_NAMESPACE"), "the controller's namespace (default $POD_NAMESPACE)")
	flag.StringVar(&o.ServiceAccount, "service-account", "piceli-controller", "the controller's ServiceAccount")
	flag.StringVar(&o.WorkDir, "work-dir", "/work", "directory for fetched revisions and state caches")
	flag.StringVar(&o.StateKeyFile, "state-key-file", "/etc/piceli/state-key/key", "the state signing key")
	flag.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", "Prometheus metrics listen address (0: off)")
	flag.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "/healthz and /readyz listen address (0: off)")
	flag.BoolVar(&o.LeaderElection, "leader-elect", false, "elect a leader among replicas")
	flag.StringVar(&o.Identity, "identity", os.Getenv("POD_NAME"), "this replica's name (default $POD_NAME)")
	watch := flag.String("watch-namespaces", "", "comma-separated namespaces whose Releases to reconcile (default: all)")
	flag.DurationVar(&o.DefaultInterval, "default-interval", time.Minute, "a Release's interval when it sets none")
	qps := flag.Float64("kube-api-qps", float64(controller.DefaultQPS), "requests a second of the controller's own client to the API server")
	flag.IntVar(&o.Burst, "kube-api-burst", controller.DefaultBurst, "requests the controller's own client may send at once above --kube-api-qps")
	if err := flag.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	o.QPS = float32(*qps)
	if o.QPS < 0 || o.Burst < 0 {
		fmt.Fprintf(os.Stderr, "piceli-controller: --kube-api-qps %v and --kube-api-burst %d must not be negative\n", *qps, o.Burst)
		os.Exit(2)
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "piceli-controller: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	for _, ns := range strings.Split(*watch, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			o.Namespaces = append(o.Namespaces, ns)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.Kubeconfig == "" {
		path, err := controller.InClusterKubeconfig(o.WorkDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "piceli-controller:", err)
			os.Exit(2)
		}
		o.Kubeconfig, o.Context = path, controller.InClusterContext
	}
	if err := controller.Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "piceli-controller:", err)
		os.Exit(1)
	}
}
