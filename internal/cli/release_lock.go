package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
)

// releaseLock holds a release's two locks for one run: a file lock in the
// state directory (dies with the process) and a Lease in the cluster (so an
// operator on another machine is refused too).
type releaseLock struct {
	holder  lock.Holder
	file    *lock.FileLock
	lease   *lock.LeaseLock
	cs      kubernetes.Interface
	ns, rel string
	cancel  context.CancelFunc
}

// lockRelease takes the file lock; ensureLease takes the Lease once the
// run is approved, so a refusal writes nothing to the cluster. It returns a
// context that ends when the lease is lost to someone else.
func lockRelease(cmd *cobra.Command, c *kube.Client, l *loaded, run string) (*releaseLock, context.Context, error) {
	h := lock.CurrentHolder(run)
	f, err := lock.File(l.Spec.Release.StateDir, h)
	if err != nil {
		return nil, nil, refused(err)
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		f.Unlock()
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	return &releaseLock{holder: h, file: f, cs: cs, ns: l.Spec.Target.Namespace, rel: l.Spec.Release.Name, cancel: cancel}, ctx, nil
}

// ensureLease takes the cluster lease if it is not held yet. A namespace
// that does not exist yet is no error: the first wave creates it and the
// engine calls ensureLease again after each wave.
func (rl *releaseLock) ensureLease(ctx context.Context, _ int) error {
	if rl.lease != nil {
		return nil
	}
	lease, err := lock.Lease(ctx, rl.cs, rl.ns, rl.rel, rl.holder, lock.LeaseOptions{})
	if errors.Is(err, lock.ErrNoNamespace) {
		return nil
	}
	if err != nil {
		return refused(err)
	}
	rl.lease = lease
	go func() {
		select {
		case <-lease.Lost():
			rl.cancel()
		case <-ctx.Done():
		}
	}()
	return nil
}

// unlock releases the lease and the file lock. It works after ctx was
// cancelled (interrupt, lost lease), within a bounded time.
func (rl *releaseLock) unlock(ctx context.Context) {
	if rl.lease != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		rl.lease.Release(rctx)
		cancel()
	}
	rl.cancel()
	rl.file.Unlock()
}
