package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/pynenc/piceli/internal/object"
)

// Names on the Lease object.
const (
	leasePrefix      = "piceli-release-"
	holderAnnotation = "piceli.dev/holder"
	defaultDuration  = 30 * time.Second
	acquireAttempts  = 3
)

// ErrNoNamespace is returned (wrapped) by Lease when the target namespace
// does not exist yet; the engine acquires the Lease after creating it.
var ErrNoNamespace = errors.New("namespace does not exist")

// errRaced marks a write that lost a race with another acquirer; the Lease
// is read again.
var errRaced = errors.New("another acquirer wrote the lease first")

// LeaseOptions tunes Lease. The zero value is valid.
type LeaseOptions struct {
	// Duration is how long the Lease stays valid without renewal; zero means
	// 30s. It is renewed every Duration/3 and stored in whole seconds, at
	// least one.
	Duration time.Duration
	// NamespaceMaybeAbsent says the caller last saw the namespace absent
	// (a plan that creates it): Lease then reads the namespace before
	// creating its Lease in it. The API server's admission takes tens of
	// milliseconds to refuse an object for a namespace it has not seen,
	// and a release applied into a new namespace asks twice (Lease, then
	// again after taking the bootstrap Lease); the read answers at once.
	// Without it, Lease learns of a missing namespace from the create.
	NamespaceMaybeAbsent bool
}

// LeaseLock is a held coordination.k8s.io/v1 Lease, renewed in the
// background until Release or until the context given to Lease ends.
type LeaseLock struct {
	client coordinationclient.LeaseInterface
	// namespaces looks up the Lease's namespace before creating the Lease
	// in it; nil when the namespace is taken to exist (LeaseOptions
	// NamespaceMaybeAbsent).
	namespaces corev1client.NamespaceInterface
	name       string
	release    string // the release label's value
	where      string // "lease ns/name", for errors
	identity   string
	duration   time.Duration

	lease *coordinationv1.Lease // owned by the renewal goroutine until done closes
	// namespace and transitions are fixed once acquired: Fence reads
	// them while the renewal goroutine owns lease.
	namespace   string
	transitions int32
	renewed     time.Time // last successful write, owned likewise

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	lost     chan struct{}
	lostErr  error // set before lost closes
}

// Lease acquires the Lease piceli-release-<release> in namespace for h: it
// creates the Lease when absent and takes it over when its holder let it
// expire, or is a process on this machine that no longer exists (so a
// killed apply frees the lock at once). Otherwise it returns a *HeldError
// naming the holder. Writes carry the resourceVersion read, so of two racing
// acquirers only one wins. When namespace does not exist it returns an error
// matching ErrNoNamespace: take the Bootstrap Lease instead. A Lease already
// recorded for the same holder (user, host, pid and run) is taken again.
//
// While another holder holds the release's Bootstrap Lease (it is about to
// create namespace), Lease refuses with a *HeldError naming that holder. It
// looks before taking the Lease, and again after, since the namespace may
// have been created in between; a Lease taken and then found contested is
// deleted again. A bootstrap Lease the caller may not read is taken as free:
// only a caller allowed to create kube-system Leases can hold one.
//
// The Lease is renewed every Duration/3 until Release or until ctx ends;
// after ctx ends it expires on its own.
func Lease(ctx context.Context, cs kubernetes.Interface, namespace, release string, h Holder, opts LeaseOptions) (*LeaseLock, error) {
	boot, err := newLeaseLock(cs, bootstrapRef(namespace, release), h, opts)
	if err != nil {
		return nil, err
	}
	l, err := newLeaseLock(cs, targetRef(namespace, release), h, opts)
	if err != nil {
		return nil, err
	}
	if opts.NamespaceMaybeAbsent {
		l.namespaces = cs.CoreV1().Namespaces()
	}
	if err := boot.free(ctx); err != nil {
		return nil, err
	}
	if l.lease, err = l.acquire(ctx, h); err != nil {
		return nil, err
	}
	if err := boot.free(ctx); err != nil {
		return nil, errors.Join(err, l.drop(ctx))
	}
	l.start(ctx)
	return l, nil
}

// leaseRef names one Lease of a release.
type leaseRef struct{ namespace, name, release string }

// targetRef is the release's Lease in its target namespace.
func targetRef(namespace, release string) leaseRef {
	return leaseRef{namespace: namespace, name: LeaseName(release), release: release}
}

// LeaseName is the name of the release's Lease in its namespace.
func LeaseName(release string) string { return leasePrefix + release }

func newLeaseLock(cs kubernetes.Interface, ref leaseRef, h Holder, opts LeaseOptions) (*LeaseLock, error) {
	if errs := validation.IsDNS1123Subdomain(ref.name); len(errs) > 0 {
		return nil, fmt.Errorf("lock release %q: lease name %s: %s", ref.release, ref.name, strings.Join(errs, "; "))
	}
	d := opts.Duration
	if d <= 0 {
		d = defaultDuration
	}
	d = max(d.Round(time.Second), time.Second)
	return &LeaseLock{
		client: cs.CoordinationV1().Leases(ref.namespace), name: ref.name, release: ref.release, namespace: ref.namespace,
		where: fmt.Sprintf("lease %s/%s", ref.namespace, ref.name), identity: h.identity(), duration: d,
		stop: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{}),
	}, nil
}

// Fence identifies this holding of the Lease for writes fenced by it:
// the Lease's namespace and name, the holder identity written into it and
// its transition count when it was acquired. A writer checks these against
// the live Lease before each write; another holder taking the Lease over
// changes the identity and raises the count.
func (l *LeaseLock) Fence() (namespace, name, identity string, transitions int32) {
	return l.namespace, l.name, l.identity, l.transitions
}

// start begins renewing a Lease just acquired.
func (l *LeaseLock) start(ctx context.Context) {
	l.transitions = ptrValue(l.lease.Spec.LeaseTransitions)
	l.renewed = time.Now()
	go l.renewLoop(ctx)
}

// acquire reads the Lease and claims it, reading again when another
// acquirer wins a race, so the loser reports the winner as the holder.
func (l *LeaseLock) acquire(ctx context.Context, h Holder) (*coordinationv1.Lease, error) {
	var err error
	for range acquireAttempts {
		var got *coordinationv1.Lease
		if got, err = l.tryAcquire(ctx, h); !errors.Is(err, errRaced) {
			return got, err
		}
	}
	return nil, fmt.Errorf("acquire %s: %w", l.where, err)
}

func (l *LeaseLock) tryAcquire(ctx context.Context, h Holder) (*coordinationv1.Lease, error) {
	cur, err := l.client.Get(ctx, l.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return l.create(ctx, h)
	case err != nil:
		return nil, fmt.Errorf("acquire %s: %w", l.where, err)
	}
	if held := l.heldBy(cur, time.Now()); held != nil {
		return nil, held
	}
	return l.takeOver(ctx, cur, h)
}

// heldBy returns the error naming cur's holder, or nil when l may take cur:
// it is free, already l's, expired, or held by a dead process on this host.
func (l *LeaseLock) heldBy(cur *coordinationv1.Lease, now time.Time) *HeldError {
	other, live := liveHolder(cur, now)
	if !live || ptrValue(cur.Spec.HolderIdentity) == l.identity {
		return nil
	}
	return &HeldError{Holder: other, Where: l.where}
}

// expired reports whether cur's last renewal is older than its duration. A
// Lease without a renewal or acquisition time has never been held.
func expired(cur *coordinationv1.Lease, now time.Time) bool {
	last := cur.Spec.RenewTime
	if last == nil {
		last = cur.Spec.AcquireTime
	}
	if last == nil {
		return true
	}
	d := defaultDuration
	if s := cur.Spec.LeaseDurationSeconds; s != nil {
		d = time.Duration(*s) * time.Second
	}
	return now.After(last.Add(d))
}

// holderOf decodes the holder annotation; a Lease written by something else
// gives the zero Holder.
func holderOf(cur *coordinationv1.Lease) Holder {
	var h Holder
	if json.Unmarshal([]byte(cur.Annotations[holderAnnotation]), &h) != nil {
		return Holder{}
	}
	return h
}

func (l *LeaseLock) create(ctx context.Context, h Holder) (*coordinationv1.Lease, error) {
	if err := l.namespaceExists(ctx); err != nil {
		return nil, err
	}
	obj := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: l.name}}
	if err := l.claim(obj, h, time.Now()); err != nil {
		return nil, err
	}
	got, err := l.client.Create(ctx, obj, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil, errRaced
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("create %s: %w", l.where, ErrNoNamespace)
	case err != nil:
		return nil, fmt.Errorf("create %s: %w", l.where, err)
	}
	return got, nil
}

// namespaceExists returns an error matching ErrNoNamespace when the
// Lease's namespace is absent (LeaseOptions NamespaceMaybeAbsent). A
// caller that may not read namespaces, or a read that fails otherwise,
// leaves the answer to the create.
func (l *LeaseLock) namespaceExists(ctx context.Context) error {
	if l.namespaces == nil {
		return nil
	}
	_, err := l.namespaces.Get(ctx, l.namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("create %s: %w", l.where, ErrNoNamespace)
	}
	return nil
}

func (l *LeaseLock) takeOver(ctx context.Context, cur *coordinationv1.Lease, h Holder) (*coordinationv1.Lease, error) {
	obj := cur.DeepCopy()
	if id := ptrValue(cur.Spec.HolderIdentity); id != "" && id != l.identity {
		obj.Spec.LeaseTransitions = ptr(ptrValue(cur.Spec.LeaseTransitions) + 1)
	}
	if err := l.claim(obj, h, time.Now()); err != nil {
		return nil, err
	}
	got, err := l.client.Update(ctx, obj, metav1.UpdateOptions{})
	switch {
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return nil, errRaced
	case err != nil:
		return nil, fmt.Errorf("take over %s: %w", l.where, err)
	}
	return got, nil
}

// claim writes l's holder into obj: identity, duration, times, the holder
// annotation and the release label.
func (l *LeaseLock) claim(obj *coordinationv1.Lease, h Holder, now time.Time) error {
	if h.Since.IsZero() {
		h.Since = now
	}
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode holder of %s: %w", l.where, err)
	}
	metav1.SetMetaDataAnnotation(&obj.ObjectMeta, holderAnnotation, string(data))
	delete(obj.Annotations, stopAnnotation) // meant for an earlier holding
	metav1.SetMetaDataLabel(&obj.ObjectMeta, object.ReleaseLabel, l.release)
	t := metav1.NewMicroTime(now)
	obj.Spec.HolderIdentity = ptr(l.identity)
	obj.Spec.LeaseDurationSeconds = ptr(int32(l.duration / time.Second))
	obj.Spec.AcquireTime, obj.Spec.RenewTime = &t, &t
	return nil
}

func ptr[T any](v T) *T { return &v }

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
