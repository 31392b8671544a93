package readiness

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/object"
)

// Defaults of WaitOptions.
const (
	DefaultInterval = time.Second
	DefaultTimeout  = 5 * time.Minute
	DefaultParallel = 8
)

// diagnoseTimeout bounds the pod reads that explain a failed wait, which
// run after the wait's own deadline has passed.
const diagnoseTimeout = 10 * time.Second

// Target names one object to wait for.
type Target struct {
	GVR schema.GroupVersionResource
	// Kind spells the object in messages before it has been read; empty
	// means the resource name.
	Kind      string
	Namespace string // empty for cluster-scoped objects
	Name      string
}

// Ref returns the target's spelling, Kind/namespace/name.
func (t Target) Ref() object.Ref {
	kind := t.Kind
	if kind == "" {
		kind = t.GVR.Resource
	}
	return object.Ref{Group: t.GVR.Group, Kind: kind, Namespace: t.Namespace, Name: t.Name}
}

// WaitOptions tune Wait; the zero value is valid.
type WaitOptions struct {
	// Interval between polls; zero means DefaultInterval.
	Interval time.Duration
	// Timeout for the whole call; zero means DefaultTimeout.
	Timeout time.Duration
	// Parallel bounds the concurrent reads of one poll; zero means
	// DefaultParallel.
	Parallel int
	// OnPoll, when set, is called after each poll that leaves targets not
	// yet current, with those targets, on Wait's goroutine. Wait never
	// prints; a CLI shows progress through this.
	OnPoll func(pending []Target)
	// OnDiagnosis, when set, is called on Wait's goroutine, after OnPoll,
	// when a problem that keeps a pending object from becoming ready is
	// known before the wait ends, and again when it changes: with the
	// object and its Diagnosis so far. Today these are the claims it waits
	// on (a PersistentVolumeClaim target, the claims of a workload's pods)
	// whose StorageClass is missing, whose provisioning failed, or that were
	// handed to a provisioner nothing in the cluster runs; each is said from
	// the second poll that finds the claim Pending. The wait goes on: a
	// provisioner may yet start. Without OnDiagnosis none of this is read.
	OnDiagnosis func(o Object)
}

func (o WaitOptions) withDefaults() WaitOptions {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	return o
}

// Object is the last seen readiness of one target.
type Object struct {
	Target Target
	Ref    object.Ref // read from the live object once seen, else Target.Ref()
	Result Result
	// Diagnosis explains, when Wait fails, why an object that is not
	// current is not: why the pods of a workload (or a Pod target) cannot
	// start (see Diagnose) and why the claims they need are not bound,
	// that a LoadBalancer Service got no address, or why no volume bound a
	// PersistentVolumeClaim (its StorageClass is missing, idle, failed to
	// provision or has no provisioner running, or the cluster has no
	// default).
	Diagnosis []string
}

// Report is what Wait saw: one Object per target, in target order.
type Report struct {
	Objects []Object
}

// Wait polls targets until every one is Current, one is Failed, the
// timeout passes or ctx ends. Each poll reads the targets not yet current
// in parallel, with one LIST per resource and namespace holding two or more
// of them and a GET for a lone one (a current target is not read again;
// Parallel bounds the requests in flight); a target not found or
// unreadable is retried until the timeout. On failure or timeout the
// returned *NotReadyError names each object that is not current, with its
// status message and its Diagnosis: for workloads, the Diagnose lines of
// their pods (found through spec.selector.matchLabels in the workload's
// namespace) and why the claims they need are not bound; for LoadBalancer
// Services and PersistentVolumeClaims, what the cluster did not do for
// them (reading its StorageClasses and the claims' events). Problems known
// before the end are told through WaitOptions.OnDiagnosis. The Report is
// filled in either case. Wait writes nothing to the cluster.
func Wait(ctx context.Context, c dynamic.Interface, targets []Target, opts WaitOptions) (Report, error) {
	w := newWaiter(c, targets, opts.withDefaults())
	waitCtx, cancel := context.WithTimeoutCause(ctx, w.opts.Timeout, errTimeout)
	defer cancel()
	err := w.loop(waitCtx)
	if err == nil {
		return w.report(), nil
	}
	return w.fail(ctx, err)
}

// waiter is the state of one Wait call; only its goroutine changes it,
// except that a poll's reads write their own index.
type waiter struct {
	c       dynamic.Interface
	opts    WaitOptions
	objects []Object
	live    []*unstructured.Unstructured
	claims  map[claimKey]*claimSeen // claims the targets wait on, as polls found them
	told    map[int][]string        // target → the lines OnDiagnosis was last given
}

func newWaiter(c dynamic.Interface, targets []Target, opts WaitOptions) *waiter {
	w := &waiter{c: c, opts: opts, objects: make([]Object, len(targets)), live: make([]*unstructured.Unstructured, len(targets)),
		claims: map[claimKey]*claimSeen{}, told: map[int][]string{}}
	for i, t := range targets {
		w.objects[i] = Object{Target: t, Ref: t.Ref(), Result: Result{Status: Unknown, Message: "not read yet"}}
	}
	return w
}

// loop polls on a ticker until all targets are current (nil), one failed
// (ErrFailed) or ctx ends (its cause).
func (w *waiter) loop(ctx context.Context) error {
	tick := time.NewTicker(w.opts.Interval)
	defer tick.Stop()
	for {
		w.poll(ctx)
		pending := w.pending()
		switch {
		case w.anyFailed():
			return ErrFailed
		case len(pending) == 0:
			return nil
		case w.opts.OnPoll != nil:
			w.opts.OnPoll(w.targets(pending))
		}
		w.explainEarly(ctx)
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

func (w *waiter) report() Report {
	return Report{Objects: w.objects}
}
