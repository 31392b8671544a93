package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// stopAnnotation on a release's Lease asks the holding it names to stop.
const stopAnnotation = "piceli.dev/stop-request"

// stopAttempts bounds how often RequestStop writes again after racing a
// renewal of the Lease.
const stopAttempts = 5

// ErrNotHeldForRun is returned (wrapped) by RequestStop when no live
// holder holds the release's Lease for the run: nothing would see the
// request.
var ErrNotHeldForRun = errors.New("no live holder holds the release's lease for the run")

// stopRequest is the annotation's value: the holding it is meant for (its
// identity, which a later holding of the same run does not share) and who
// asked.
type stopRequest struct {
	Holder string    `json:"holder"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

// LeaseHolder reads the release's Lease in namespace, without taking it,
// and returns its holder while the holding is live: not expired, and not
// a process on this machine that no longer exists. ok is false for a
// Lease that is absent, free or no longer live.
func LeaseHolder(ctx context.Context, cs kubernetes.Interface, namespace, release string) (h Holder, ok bool, err error) {
	cur, err := readLease(ctx, cs, namespace, release)
	if err != nil || cur == nil {
		return Holder{}, false, err
	}
	h, ok = liveHolder(cur, time.Now())
	return h, ok, nil
}

// RequestStop asks whoever holds the release's Lease for run to stop, by
// an annotation on the Lease meant for that holding alone; by says who
// asks. It returns the holder asked. The write is conditional on the
// version read, so it never lands on a Lease taken over meanwhile. When no
// live holder holds the Lease for run it writes nothing and returns an
// error matching ErrNotHeldForRun.
func RequestStop(ctx context.Context, cs kubernetes.Interface, namespace, release, run, by string) (Holder, error) {
	ref := targetRef(namespace, release)
	for range stopAttempts {
		cur, err := readLease(ctx, cs, namespace, release)
		if err != nil {
			return Holder{}, err
		}
		h, ok := Holder{}, false
		if cur != nil {
			h, ok = liveHolder(cur, time.Now())
		}
		if !ok || h.Run != run {
			return h, fmt.Errorf("stop run %s: %w (lease %s/%s)", run, ErrNotHeldForRun, namespace, ref.name)
		}
		err = writeStopRequest(ctx, cs, cur, stopRequest{Holder: ptrValue(cur.Spec.HolderIdentity), By: by, At: time.Now().UTC()})
		switch {
		case err == nil:
			return h, nil
		case !apierrors.IsConflict(err):
			return h, fmt.Errorf("stop run %s: write lease %s/%s: %w", run, namespace, ref.name, err)
		}
	}
	return Holder{}, fmt.Errorf("stop run %s: lease %s/%s kept changing; try again", run, namespace, ref.name)
}

// StopRequested reports whether RequestStop asked this holding of the
// Lease to stop, with one read of the Lease.
func (l *LeaseLock) StopRequested(ctx context.Context) (bool, error) {
	cur, err := l.client.Get(ctx, l.name, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("read %s: %w", l.where, err)
	}
	var req stopRequest
	if json.Unmarshal([]byte(cur.Annotations[stopAnnotation]), &req) != nil {
		return false, nil
	}
	return req.Holder == l.identity, nil
}

// readLease returns the release's Lease, nil when there is none.
func readLease(ctx context.Context, cs kubernetes.Interface, namespace, release string) (*coordinationv1.Lease, error) {
	ref := targetRef(namespace, release)
	cur, err := cs.CoordinationV1().Leases(namespace).Get(ctx, ref.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read lease %s/%s: %w", namespace, ref.name, err)
	}
	return cur, nil
}

// liveHolder returns cur's holder and whether its holding is live.
func liveHolder(cur *coordinationv1.Lease, now time.Time) (Holder, bool) {
	if ptrValue(cur.Spec.HolderIdentity) == "" || expired(cur, now) {
		return Holder{}, false
	}
	h := holderOf(cur)
	return h, !deadHere(h)
}

// writeStopRequest adds the request to cur's annotations, on the
// condition that the Lease is still at cur's resourceVersion (an update,
// which the operator's Role allows, rather than a patch).
func writeStopRequest(ctx context.Context, cs kubernetes.Interface, cur *coordinationv1.Lease, req stopRequest) error {
	value, err := json.Marshal(req)
	if err != nil {
		return err
	}
	obj := cur.DeepCopy()
	metav1.SetMetaDataAnnotation(&obj.ObjectMeta, stopAnnotation, string(value))
	_, err = cs.CoordinationV1().Leases(cur.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
	return err
}
