package lock

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// BootstrapNamespace holds the bootstrap Leases. kube-system is in every
// cluster and cannot be deleted, it is where the control plane keeps its
// own coordination Leases, and a plan already reads it for the cluster's
// identity.
const BootstrapNamespace = "kube-system"

// Bootstrap acquires the release's bootstrap Lease for h: the Lease
// piceli-release-<release>.<namespace> in BootstrapNamespace (neither name
// holds a dot, so the name is one pair's only), by the same rules as Lease.
// It stands for the release's Lease while namespace does not exist yet, so
// that one writer holds the release before its first write, the one that
// creates the namespace; Lease refuses others while it is held. Once
// namespace exists, take its Lease and Release this one. A caller that may
// not create Leases in BootstrapNamespace gets an error saying so.
func Bootstrap(ctx context.Context, cs kubernetes.Interface, namespace, release string, h Holder, opts LeaseOptions) (*LeaseLock, error) {
	l, err := newLeaseLock(cs, bootstrapRef(namespace, release), h, opts)
	if err != nil {
		return nil, err
	}
	l.lease, err = l.acquire(ctx, h)
	if apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("%w (a release whose namespace does not exist yet holds this lease while it creates the namespace)", err)
	}
	if err != nil {
		return nil, err
	}
	l.start(ctx)
	return l, nil
}

// bootstrapRef is the release's bootstrap Lease for namespace.
func bootstrapRef(namespace, release string) leaseRef {
	return leaseRef{namespace: BootstrapNamespace, name: leasePrefix + release + "." + namespace, release: release}
}

// free reads the Lease l names and returns a *HeldError naming its holder
// when another holder may not take it (see heldBy); nil when it is absent,
// takeable, or forbidden to read.
func (l *LeaseLock) free(ctx context.Context) error {
	cur, err := l.client.Get(ctx, l.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", l.where, err)
	}
	if held := l.heldBy(cur, time.Now()); held != nil {
		return held
	}
	return nil
}
