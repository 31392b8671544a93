package release

import (
	"context"
	"errors"
	"time"

	"github.com/pynenc/piceli/internal/lock"
)

// runLock holds a release's two locks for one run: a file lock in the state
// directory (it dies with the process) and a Lease in the cluster (so an
// operator on another machine is refused too).
type runLock struct {
	s      *session
	holder lock.Holder
	file   *lock.FileLock
	lease  *lock.LeaseLock
	cancel context.CancelFunc
}

// lockFile takes the file lock. The returned context ends when the Lease,
// once taken, is lost to someone else.
func (s *session) lockFile(ctx context.Context, run string) (*runLock, context.Context, error) {
	h := lock.CurrentHolder(run)
	f, err := lock.File(s.r.StateDir(), h)
	if err != nil {
		return nil, nil, refuse(classify(err))
	}
	ctx, cancel := context.WithCancel(ctx)
	return &runLock{s: s, holder: h, file: f, cancel: cancel}, ctx, nil
}

// ensureLease takes the cluster Lease if it is not held yet. It runs after
// the approval check, so a refusal writes nothing to the cluster. A
// namespace that does not exist yet is no error: the first wave creates it
// and the engine calls ensureLease again after each wave.
func (l *runLock) ensureLease(ctx context.Context, _ int) error {
	if l.lease != nil {
		return nil
	}
	t := l.s.r.spec
	lease, err := lock.Lease(ctx, l.s.client.Clientset, t.Target.Namespace, t.Release.Name, l.holder, lock.LeaseOptions{})
	if errors.Is(err, lock.ErrNoNamespace) {
		return nil
	}
	if err != nil {
		return refuse(classify(err))
	}
	l.lease = lease
	go func() {
		select {
		case <-lease.Lost():
			l.cancel()
		case <-ctx.Done():
		}
	}()
	return nil
}

// unlock releases the Lease and the file lock. It works after ctx ended
// (an interrupt, a lost Lease), within a bounded time.
func (l *runLock) unlock(ctx context.Context) {
	if l.lease != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		l.lease.Release(rctx)
		cancel()
	}
	l.cancel()
	l.file.Unlock()
}
