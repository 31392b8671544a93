package release

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/plan"
)

// runLock holds a release's locks for one run: a file lock in the state
// directory (it dies with the process) and a Lease in the cluster (so an
// operator on another machine is refused too). While the target namespace
// does not exist the cluster lock is the release's bootstrap Lease in
// kube-system; the run moves to the namespace's Lease once a wave has
// created the namespace.
type runLock struct {
	s         *session
	holder    lock.Holder
	file      *lock.FileLock
	lease     *lock.LeaseLock         // the namespace's Lease, once held
	bootstrap *lock.LeaseLock         // the bootstrap Lease, held until lease is
	cancel    context.CancelCauseFunc // with why the run's context ended
	stops     stopWatch               // a stop asked through lease
}

// lockFile takes the file lock. The returned context ends when a Lease,
// once taken, is lost to someone else.
func (s *session) lockFile(ctx context.Context, run string) (*runLock, context.Context, error) {
	h := lock.CurrentHolder(run)
	f, err := lock.File(s.r.StateDir(), h)
	if err != nil {
		return nil, nil, refuse(classify(err))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return &runLock{s: s, holder: h, file: f, cancel: cancel}, ctx, nil
}

// ensureLease makes sure the run holds the release in the cluster before
// its next write: the namespace's Lease, or while the namespace does not
// exist the bootstrap Lease. It runs after the approval check, so a
// refusal writes nothing to the cluster, and the engine calls it again
// after each wave, so the run moves to the namespace's Lease as soon as a
// wave has created the namespace.
func (l *runLock) ensureLease(ctx context.Context, _ int) error {
	if l.lease != nil {
		return nil
	}
	err := l.takeLease(ctx)
	if errors.Is(err, lock.ErrNoNamespace) {
		return l.takeBootstrap(ctx)
	}
	return err
}

// takeLease takes the namespace's Lease and lets the bootstrap one go. It
// returns an error matching lock.ErrNoNamespace when there is no namespace
// yet.
func (l *runLock) takeLease(ctx context.Context) error {
	t := l.s.r.spec
	opts := lock.LeaseOptions{NamespaceMaybeAbsent: createsNamespace(l.s.plan, t.Target.Namespace)}
	lease, err := lock.Lease(ctx, l.s.client.Clientset, t.Target.Namespace, t.Release.Name, l.holder, opts)
	if errors.Is(err, lock.ErrNoNamespace) {
		return err
	}
	if err != nil {
		return refuse(classify(err))
	}
	l.lease = l.watch(ctx, lease)
	l.stops.watch(lease)
	l.bootstrap = letGo(ctx, l.bootstrap)
	return nil
}

// createsNamespace reports whether p creates namespace: the plan found it
// absent, so the Lease looks for it before creating a Lease in it.
func createsNamespace(p *plan.Plan, namespace string) bool {
	if p == nil {
		return false
	}
	return slices.ContainsFunc(p.Steps, func(st plan.Step) bool {
		return st.Action == plan.Create && st.Ref.Kind == "Namespace" && st.Ref.Group == "" && st.Ref.Name == namespace
	})
}

// takeBootstrap holds the bootstrap Lease while the namespace does not
// exist. Having taken it, it looks for the namespace's Lease once more: the
// namespace may have been created, and its Lease taken, since the first
// look.
func (l *runLock) takeBootstrap(ctx context.Context) error {
	if l.bootstrap != nil {
		return nil
	}
	t := l.s.r.spec
	b, err := lock.Bootstrap(ctx, l.s.client.Clientset, t.Target.Namespace, t.Release.Name, l.holder, lock.LeaseOptions{})
	if err != nil {
		return refuse(classify(err))
	}
	l.bootstrap = l.watch(ctx, b)
	if err := l.takeLease(ctx); !errors.Is(err, lock.ErrNoNamespace) {
		return err
	}
	return nil
}

// watch ends the run's context when lease is lost, with why as its
// cause, and returns lease.
func (l *runLock) watch(ctx context.Context, lease *lock.LeaseLock) *lock.LeaseLock {
	go func() {
		select {
		case <-lease.Lost():
			l.cancel(l.lostCause(ctx, lease))
		case <-ctx.Done():
		}
	}()
	return lease
}

// lostCause says why the run lost lease: above all, that the target
// namespace was deleted during the run (its Lease goes with it), and what
// to do then.
func (l *runLock) lostCause(ctx context.Context, lease *lock.LeaseLock) error {
	ns := l.s.r.spec.Target.Namespace
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	live, err := l.s.client.Clientset.CoreV1().Namespaces().Get(rctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && live.DeletionTimestamp != nil) {
		return fmt.Errorf("namespace %s was deleted during the run, and the release's Lease with it; nothing more was written: plan the release again (piceli release plan) and apply the new plan, which recreates what it declares", ns)
	}
	return fmt.Errorf("the run lost the release's Lease in namespace %s: %w", ns, lease.Err())
}

// withCause replaces a bare context error of a run that its lock ended
// with why the lock ended it.
func withCause(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	if err == nil || !errors.Is(err, context.Canceled) || cause == nil || errors.Is(cause, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w (%v)", cause, err)
}

// unlock releases the Leases and the file lock. It works after ctx ended
// (an interrupt, a lost Lease), within a bounded time.
func (l *runLock) unlock(ctx context.Context) {
	l.stops.watch(nil)
	l.lease = letGo(ctx, l.lease)
	l.bootstrap = letGo(ctx, l.bootstrap)
	l.cancel(nil)
	l.file.Unlock()
}

// letGo lets go of lease, if held, within a bounded time even after ctx
// ended, and returns nil.
func letGo(ctx context.Context, lease *lock.LeaseLock) *lock.LeaseLock {
	if lease != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		lease.Release(rctx)
		cancel()
	}
	return nil
}
