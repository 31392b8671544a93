package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/sandbox"
)

// target is the cluster the benchmark runs against.
type target struct {
	Kubeconfig, Context string
	Kubectl             string // the sandbox's own kubectl
	Private             bool   // a sandbox the benchmark started for itself
}

// sandboxAttempts bounds the starts of the private sandbox: kwokctl picks
// free ports when it starts, and a sandbox another process starts at the
// same moment can take one of them first.
const sandboxAttempts = 3

// startSandbox starts a private sandbox with nodes fake nodes in dir, from
// the cached binaries (it never builds them), and returns it with its
// target. The caller stops it.
func startSandbox(ctx context.Context, dir string, nodes int, log io.Writer) (*sandbox.Sandbox, target, error) {
	var errs []error
	for attempt := range sandboxAttempts {
		sb, t, err := startOnce(ctx, filepath.Join(dir, fmt.Sprint(attempt)), nodes, log)
		if err == nil || ctx.Err() != nil {
			return sb, t, err
		}
		errs = append(errs, err)
		if sb != nil {
			stop, cancel := context.WithTimeout(ctx, time.Minute)
			_, derr := sb.Down(stop)
			cancel()
			if derr != nil {
				return nil, target{}, errors.Join(append(errs, derr)...)
			}
		}
	}
	return nil, target{}, errors.Join(errs...)
}

func startOnce(ctx context.Context, dir string, nodes int, log io.Writer) (*sandbox.Sandbox, target, error) {
	sb, err := sandbox.Open(sandbox.Options{
		Name:     fmt.Sprintf("bench%d", time.Now().UnixNano()%1_000_000),
		Dir:      dir,
		ToolsDir: os.DevNull, // build the binaries with make sandbox-bins, not here
		Nodes:    nodes,
		Timeout:  5 * time.Minute,
		Progress: sandbox.ProgressTo(log),
	})
	if err != nil {
		return nil, target{}, err
	}
	if missing := sb.Binaries().Missing(); len(missing) > 0 {
		return nil, target{}, fmt.Errorf("sandbox binaries %v missing from %s: run make sandbox-bins", missing, sb.Binaries().Dir)
	}
	info, err := sb.Up(ctx)
	if err != nil {
		return sb, target{}, err
	}
	return sb, target{Kubeconfig: info.Kubeconfig, Context: info.Context, Kubectl: sb.Binaries().Path("kubectl"), Private: true}, nil
}

// cluster is the benchmark's own connection to the target: it reads the
// API server's metrics and cleans namespaces up between runs.
type cluster struct {
	c *kube.Client
}

func connect(ctx context.Context, t target) (*cluster, error) {
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context})
	if err != nil {
		return nil, err
	}
	return &cluster{c: c}, nil
}

// requests scrapes the API server's request counters.
func (c *cluster) requests(ctx context.Context) (requestCounts, error) {
	data, err := c.c.Clientset.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the API server's /metrics: %w", err)
	}
	return parseRequests(data)
}

// deleteNamespace deletes ns and waits until it is gone, so that one run's
// clean-up never overlaps the next run's measurement.
func (c *cluster) deleteNamespace(ctx context.Context, ns string) error {
	nss := c.c.Clientset.CoreV1().Namespaces()
	err := nss.Delete(ctx, ns, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := nss.Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for namespace %s to go: %w", ns, ctx.Err())
		case <-tick.C:
		}
	}
}
