package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/sandbox"
)

// Environment variables set by scripts/with-sandbox.sh to point tests at the
// sandbox it started.
const (
	EnvKubeconfig = "PICELI_SANDBOX_KUBECONFIG"
	EnvContext    = "PICELI_SANDBOX_CONTEXT"
)

// Sandbox is a running sandbox reachable from a test.
type Sandbox struct {
	Name       string // sandbox name, e.g. "piceli"
	Dir        string // its state directory (sandbox.Options.Dir)
	Kubeconfig string // kubeconfig file path
	Context    string // context to use in it
	RESTConfig *rest.Config
	Clientset  *kubernetes.Clientset
	Dynamic    *dynamic.DynamicClient
}

// Cluster returns the running sandbox named by $PICELI_SANDBOX_KUBECONFIG and
// $PICELI_SANDBOX_CONTEXT, else the default sandbox found from the working
// directory. When none answers, the test is skipped with the reason, or
// fails when CI=true (a green CI must mean cluster tests ran).
func Cluster(t testing.TB) *Sandbox {
	t.Helper()
	sb, err := Find()
	if err != nil {
		Unavailable(t, err.Error())
	}
	return sb
}

// Find is Cluster for code that has no test at hand (a TestMain that
// prepares an example): it returns the sandbox or why none answers, and
// leaves skipping or failing to the caller.
func Find() (*Sandbox, error) {
	kubeconfig, context, err := locate()
	if err != nil {
		return nil, err
	}
	return connect(kubeconfig, context)
}

// Unavailable skips the test with reason, or fails it when CI=true. Cluster
// calls it; tests that need something else from the sandbox (its binaries)
// call it too.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	hint := "start one with `piceli sandbox up` or run the tests through scripts/with-sandbox.sh"
	if os.Getenv("CI") == "true" {
		t.Fatalf("sandbox unavailable under CI=true: %s (%s)", reason, hint)
	}
	t.Skipf("sandbox unavailable: %s (%s)", reason, hint)
}

// locate finds the kubeconfig and context from the environment or the
// default sandbox layout.
func locate() (string, string, error) {
	if kc := os.Getenv(EnvKubeconfig); kc != "" {
		ctx := os.Getenv(EnvContext)
		if ctx == "" {
			ctx = "kwok-" + sandbox.DefaultName
		}
		return kc, ctx, nil
	}
	dir, err := sandbox.DefaultDir()
	if err != nil {
		return "", "", err
	}
	layout, err := sandbox.NewLayout(dir, sandbox.DefaultName)
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(layout.Kubeconfig()); err != nil {
		return "", "", fmt.Errorf("no kubeconfig at %s and %s unset", layout.Kubeconfig(), EnvKubeconfig)
	}
	return layout.Kubeconfig(), layout.Context(), nil
}

// Connect returns the sandbox reached through the kubeconfig file's
// context, once its API server answers /readyz: for a test that started a
// sandbox of its own.
func Connect(kubeconfig, kubeContext string) (*Sandbox, error) {
	return connect(kubeconfig, kubeContext)
}

// connect builds clients and checks the API server answers /readyz.
func connect(kubeconfig, kubeContext string) (*Sandbox, error) {
	cfg, err := sandbox.RESTConfig(kubeconfig, kubeContext)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return nil, fmt.Errorf("API server of %s (context %s) not ready: %w", kubeconfig, kubeContext, err)
	}
	return &Sandbox{
		Name: strings.TrimPrefix(kubeContext, "kwok-"), Dir: filepath.Dir(kubeconfig),
		Kubeconfig: kubeconfig, Context: kubeContext, RESTConfig: cfg, Clientset: cs, Dynamic: dyn,
	}, nil
}

// Context returns a context cancelled when the test ends, bounded by d.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}
