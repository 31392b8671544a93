package lock

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lost is closed when the Lease is no longer this holder's: it was deleted,
// another holder took it over, or it could not be renewed for a whole
// Duration (so another may take it). The holder should stop writing. It is
// not closed by Release nor when the context given to Lease ends.
func (l *LeaseLock) Lost() <-chan struct{} { return l.lost }

// Err says why Lost closed, and is nil until then.
func (l *LeaseLock) Err() error {
	select {
	case <-l.lost:
		return l.lostErr
	default:
		return nil
	}
}

// Release stops renewing and deletes the Lease, with preconditions on its
// UID and last written resourceVersion so a Lease taken over since is left
// alone. Where deleting is forbidden it clears the holder instead. A Lease
// already gone or no longer this holder's is not an error.
func (l *LeaseLock) Release(ctx context.Context) error {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.done
	if l.Err() != nil {
		return nil
	}
	return l.drop(ctx)
}

// drop deletes the Lease last written, as Release does, without touching
// the renewal.
//
// A conflict is read again once: a Lease still this holder's, written
// since its last renewal by someone else (a stop request through
// RequestStop is), is deleted at its new version; left alone, it would
// keep this ended holding live until it expired.
func (l *LeaseLock) drop(ctx context.Context) error {
	cur := l.lease
	err := l.client.Delete(ctx, l.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{
		UID: &cur.UID, ResourceVersion: &cur.ResourceVersion,
	}})
	if apierrors.IsConflict(err) {
		again, gerr := l.client.Get(ctx, l.name, metav1.GetOptions{})
		if gerr != nil || again.UID != cur.UID || ptrValue(again.Spec.HolderIdentity) != l.identity {
			return nil
		}
		l.lease = again
		err = l.client.Delete(ctx, l.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{
			UID: &again.UID, ResourceVersion: &again.ResourceVersion,
		}})
	}
	switch {
	case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil
	case apierrors.IsForbidden(err):
		return l.clear(ctx)
	}
	return fmt.Errorf("release %s: %w", l.where, err)
}

// clear empties the holder of the Lease last written, for callers allowed
// to update Leases but not to delete them.
func (l *LeaseLock) clear(ctx context.Context) error {
	obj := l.lease.DeepCopy()
	obj.Spec.HolderIdentity, obj.Spec.AcquireTime, obj.Spec.RenewTime = nil, nil, nil
	delete(obj.Annotations, holderAnnotation)
	_, err := l.client.Update(ctx, obj, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release %s: clear holder: %w", l.where, err)
	}
	return nil
}

// renewLoop renews the Lease every Duration/3 until Release, ctx's end, or
// the Lease is lost.
func (l *LeaseLock) renewLoop(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(l.duration / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.stop:
			return
		case <-tick.C:
		}
		if err := l.renew(ctx); err != nil {
			l.lostErr = err
			close(l.lost)
			return
		}
	}
}

// renew writes a new renewTime. It returns an error only when the Lease is
// lost; a failed write is retried at the next tick while the Lease has not
// expired.
func (l *LeaseLock) renew(ctx context.Context) error {
	obj := l.lease.DeepCopy()
	now := time.Now()
	obj.Spec.RenewTime = ptr(metav1.NewMicroTime(now))
	got, err := l.client.Update(ctx, obj, metav1.UpdateOptions{})
	switch {
	case err == nil:
		l.lease, l.renewed = got, now
		return nil
	case ctx.Err() != nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("renew %s: it was deleted", l.where)
	case apierrors.IsConflict(err):
		return l.reread(ctx)
	}
	return l.unrenewed(err)
}

// unrenewed turns a failed renewal into a loss once the Lease has gone a
// whole duration without one, since another holder may then take it.
func (l *LeaseLock) unrenewed(err error) error {
	if time.Since(l.renewed) <= l.duration {
		return nil
	}
	return fmt.Errorf("renew %s: not renewed for %s: %w", l.where, l.duration, err)
}

// reread follows a conflicting write by someone else: the Lease is lost when
// gone or held by another; otherwise its new version is renewed next tick.
func (l *LeaseLock) reread(ctx context.Context) error {
	cur, err := l.client.Get(ctx, l.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("renew %s: it was deleted", l.where)
	case err != nil:
		return l.unrenewed(err)
	case ptrValue(cur.Spec.HolderIdentity) != l.identity:
		return fmt.Errorf("renew %s: %w", l.where, &HeldError{Holder: holderOf(cur), Where: l.where})
	}
	l.lease = cur
	return nil
}
