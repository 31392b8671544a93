package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// Reconciler delivers Releases: it resolves each Release's source to a
// revision, plans it with package release against the live cluster,
// reports the plan in status and applies it once approved by hash or by
// the Release's policy.
type Reconciler struct {
	Client  client.Client // cached reads of Releases and RoleBindings, writes of Release status
	Reader  client.Reader // uncached reads: credentials Secrets
	Options Options
	Signer  string // the controller's state signer line
	Events  *EventSink
	Metrics *Metrics
	// NewSource builds a Release's source; nil means source.New.
	NewSource func(v1alpha1.Source, source.Credentials) (source.Source, error)

	drift driftClock
}

// lockRetry is how soon a Release whose Lease another writer holds is
// tried again.
const lockRetry = 15 * time.Second

// Reconcile handles one Release.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	start := time.Now()
	var rel v1alpha1.Release
	if err := r.Client.Get(ctx, req.NamespacedName, &rel); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, r.forget(req.NamespacedName)
	}
	st := newStatus(&rel, r.Signer)
	res, err := r.deliver(ctx, &rel, st)
	r.Metrics.reconciled(time.Since(start), err)
	if perr := r.writeStatus(ctx, req.NamespacedName, st); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	return res, nil
}

// forget drops what the controller keeps of a deleted Release: its work
// directory, its last event and its drift clock.
func (r *Reconciler) forget(key types.NamespacedName) error {
	r.Events.forget(key)
	r.drift.forget(key)
	ws, err := workspaceOf(r.Options.WorkDir, key.Namespace, key.Name)
	if err != nil {
		return nil // no name the controller could have made a directory of
	}
	return ws.remove()
}

// deliver is one pass over rel: everything it decides goes into st.
func (r *Reconciler) deliver(ctx context.Context, rel *v1alpha1.Release, st *status) (reconcile.Result, error) {
	every := r.interval(rel)
	if rel.Spec.Suspend {
		st.suspended()
		return reconcile.Result{}, nil
	}
	if reason, err := r.permitted(ctx, rel); err != nil || reason != "" {
		if err != nil {
			return reconcile.Result{}, err
		}
		st.stalled("NotPermitted", reason)
		r.Events.warn(rel, "NotPermitted", reason)
		return reconcile.Result{RequeueAfter: every}, nil
	}
	content, err := r.fetch(ctx, rel, st)
	if err != nil {
		return r.failed(rel, st, "SourceFailed", err, every)
	}
	rl, err := r.open(rel, content)
	if err != nil {
		return r.failed(rel, st, "SpecRefused", err, every)
	}
	if res, busy, err := r.settleLatestRun(ctx, rel, rl, st); busy || err != nil {
		if err != nil {
			return r.failed(rel, st, "ResumeFailed", err, every)
		}
		return res, nil
	}
	if res, done, err := r.pinned(ctx, rel, rl, content, st); done {
		return res, err
	}
	if res, wait := r.held(rel, st, content.Revision); wait {
		return res, nil
	}
	if settled(rel, st, content.Revision) && !syncAsked(rel) {
		return r.watch(ctx, rel, rl, content.Revision, st)
	}
	if r.unchanged(ctx, rl, st, content.Revision) {
		r.Metrics.planned(false)
		return reconcile.Result{RequeueAfter: every}, nil
	}
	return r.planAndApply(ctx, rel, rl, content.Revision, st)
}

// planAndApply plans rev, reports the plan, and applies it when someone
// or the policy approved it.
func (r *Reconciler) planAndApply(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, rev source.Revision, st *status) (reconcile.Result, error) {
	every := r.interval(rel)
	// Fields someone edited are taken back by the plan, in the open: its
	// steps list them (Step.Reclaim) for whoever approves it.
	// A plan the status already shows for rev (one that waits for its
	// approval, or after a stop) is not stored and shared again while it
	// stays the plan: such a pass writes nothing.
	p, err := rl.Plan(ctx, release.PlanOptions{Reclaim: true, Known: shownPlan(rel, rev)})
	if err != nil {
		return r.failed(rel, st, "PlanFailed", err, every)
	}
	r.Metrics.planned(p.Changed())
	st.planned(p, rev, r.approvedBy(rel, p))
	if rel.Spec.Policy != nil && st.Plan.ApprovedBy == "" {
		st.Plan.PolicyRefused = PolicyRefuses(rel.Spec.Policy, p)
	}
	r.history(ctx, rl, st)
	if r.stillStopped(rel, st, p) {
		return reconcile.Result{RequeueAfter: every}, nil
	}
	switch {
	case !p.Changed() && st.Failure == nil:
		// (After a failed run the objects may all be written and not
		// ready: the no-op plan is run again, for its readiness and checks.)
		st.upToDate(rev.String(), p.Hash)
		return reconcile.Result{RequeueAfter: every}, nil
	case st.Plan.ApprovedBy == "":
		st.awaitingApproval(rel, p)
		r.Events.once(rel, "ApprovalRequired", fmt.Sprintf("plan %s of %s waits for approval: %s", p.ShortHash(), rev, p.Summary()))
		return reconcile.Result{RequeueAfter: every}, nil
	}
	return r.apply(ctx, rel, rl, p, rev, st, release.RunOptions{Reclaim: true})
}

// shownPlan is the hash of the plan rel's status shows for rev, if any.
func shownPlan(rel *v1alpha1.Release, rev source.Revision) string {
	if p := rel.Status.Plan; p != nil && p.SourceRevision == rev.String() {
		return p.Hash
	}
	return ""
}

// unchanged says whether a Release that was Ready at rev, and whose spec
// changed since (settled says no), still is: a Diff, which stores nothing
// and writes nothing to the cluster, finds no change. Then the pass writes
// nothing either; any change is planned (and stored, and shared) as usual.
func (r *Reconciler) unchanged(ctx context.Context, rl *release.Release, st *status, rev source.Revision) bool {
	if st.State != v1alpha1.StateReady || st.AppliedRevision != rev.String() {
		return false
	}
	d, err := rl.Diff(ctx, release.PlanOptions{Reclaim: true})
	return err == nil && !d.Changed()
}

// fetch resolves rel's source and fetches that revision.
func (r *Reconciler) fetch(ctx context.Context, rel *v1alpha1.Release, st *status) (*source.Content, error) {
	creds, err := r.credentials(ctx, rel)
	if err != nil {
		return nil, err
	}
	newSource := r.NewSource
	if newSource == nil {
		newSource = func(s v1alpha1.Source, c source.Credentials) (source.Source, error) {
			return source.New(s, c, source.Options{})
		}
	}
	src, err := newSource(rel.Spec.Source, creds)
	if err != nil {
		return nil, err
	}
	rev, err := src.Resolve(ctx)
	if err != nil {
		return nil, err
	}
	st.SourceRevision = rev.String()
	ws, err := workspaceOf(r.Options.WorkDir, rel.Namespace, rel.Name)
	if err != nil {
		return nil, err
	}
	return ws.fetch(ctx, src, rev, pinnedIDs(rel)...)
}

// credentials reads the Secret rel's source names, in rel's namespace.
func (r *Reconciler) credentials(ctx context.Context, rel *v1alpha1.Release) (source.Credentials, error) {
	ref := secretRefOf(rel.Spec.Source)
	if ref == "" {
		return nil, nil
	}
	var s corev1.Secret
	if err := r.Reader.Get(ctx, types.NamespacedName{Namespace: rel.Namespace, Name: ref}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &source.SpecError{Field: "spec.source.secretRef", Reason: fmt.Sprintf("Secret %s/%s does not exist", rel.Namespace, ref)}
		}
		return nil, fmt.Errorf("read the source's Secret %s/%s: %w", rel.Namespace, ref, err)
	}
	if s.Labels[CredentialsLabel] != "true" {
		return nil, &source.SpecError{Field: "spec.source.secretRef", Reason: fmt.Sprintf("Secret %s/%s is not labelled %s=true; label a Secret that holds source credentials, so that a Release cannot send any other Secret to a server it names", rel.Namespace, ref, CredentialsLabel)}
	}
	return source.Credentials(s.Data), nil
}

// CredentialsLabel marks a Secret as source credentials a Release may
// name: without it, anyone who may create a Release could have the
// controller send any Secret of the namespace to a server of their
// choosing as a password.
const CredentialsLabel = "piceli.dev/source-credentials"

func secretRefOf(s v1alpha1.Source) string {
	switch {
	case s.OCI != nil && s.OCI.SecretRef != nil:
		return s.OCI.SecretRef.Name
	case s.Git != nil && s.Git.SecretRef != nil:
		return s.Git.SecretRef.Name
	}
	return ""
}

// open writes rel's release spec for content and opens it.
func (r *Reconciler) open(rel *v1alpha1.Release, c *source.Content) (*release.Release, error) {
	ws, err := workspaceOf(r.Options.WorkDir, rel.Namespace, rel.Name)
	if err != nil {
		return nil, err
	}
	path, err := ws.writeSpec(r.Options, rel, c, r.Signer)
	if err != nil {
		return nil, err
	}
	return release.Open(path, release.Options{
		Log: r.Options.Log, CacheDir: ws.dir + "/cache", StateKeyFile: r.Options.StateKeyFile,
		Artifact: c.Artifact, InCluster: true,
	})
}

// settleLatestRun looks at the release's latest run before planning. A run
// whose holder died in the middle (a replica killed while applying) is
// resumed: this replica finishes it through the journal, so no approved
// write is lost or made twice. A run another live holder still runs (the
// other replica before its Lease expires, a laptop, CI) is waited for.
// busy says the pass ends here.
func (r *Reconciler) settleLatestRun(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, st *status) (reconcile.Result, bool, error) {
	rep, err := rl.Run(ctx, "")
	if err != nil || rep.Run == nil {
		return reconcile.Result{}, false, err
	}
	switch rep.Run.Phase {
	case release.PhaseRunning:
		st.reconciling("RunInProgress", fmt.Sprintf("run %s of plan %s is running (%s); waiting for it to end", rep.Run.ID, plan.ShortHash(rep.Run.Plan), rep.Run.Holder))
		st.State = v1alpha1.StateApplying
		return reconcile.Result{RequeueAfter: lockRetry}, true, nil
	case release.PhaseInterrupted:
		r.Events.normal(rel, "Resuming", fmt.Sprintf("run %s was interrupted (%s); resuming it", rep.Run.ID, rep.Run.Holder))
		res, err := rl.Resume(ctx, release.RunOptions{})
		r.ran(rel, st, res, err, rep.Run.Plan, st.SourceRevision)
		if err == nil {
			st.runChecks(ctx, rl, res.Run)
		}
		r.history(ctx, rl, st)
		return reconcile.Result{Requeue: true}, true, err
	}
	return reconcile.Result{}, false, nil
}

// apply runs the approved plan p, made as opts say.
func (r *Reconciler) apply(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, p *plan.Plan, rev source.Revision, st *status, opts release.RunOptions) (reconcile.Result, error) {
	r.Events.normal(rel, "Applying", fmt.Sprintf("applying plan %s of %s, approved by %s", p.ShortHash(), rev, st.Plan.ApprovedBy))
	st.applying(p)
	if err := r.writeStatus(ctx, client.ObjectKeyFromObject(rel), st); err != nil {
		return reconcile.Result{}, err
	}
	res, err := rl.Apply(ctx, p.Hash, opts)
	r.ran(rel, st, res, err, p.Hash, rev.String())
	r.history(ctx, rl, st)
	if res != nil && res.Phase == release.PhaseStopped {
		return r.stoppedRun(rel, st, res, p.Hash, rev), nil
	}
	var held *release.LockHeldError
	switch {
	case errors.As(err, &held):
		st.reconciling("LockHeld", err.Error())
		return reconcile.Result{RequeueAfter: lockRetry}, nil
	case err != nil && refusal.Is(err):
		// A stale plan: the next pass plans again.
		st.reconciling("PlanStale", err.Error())
		return reconcile.Result{Requeue: true}, nil
	case err != nil:
		return r.failedRun(rel, st, rev.String(), err), nil
	}
	st.applied(rev.String(), p.Hash)
	st.runChecks(ctx, rl, res.Run)
	return reconcile.Result{RequeueAfter: r.interval(rel)}, nil
}

// failed records err on st: a refusal or a source that cannot be used
// stalls the Release until something changes; anything else is retried.
func (r *Reconciler) failed(rel *v1alpha1.Release, st *status, reason string, err error, every time.Duration) (reconcile.Result, error) {
	var spec *source.SpecError
	msg := err.Error()
	r.Events.warn(rel, reason, msg)
	if refusal.Is(err) || errors.As(err, &spec) {
		st.stalled(reason, msg)
		return reconcile.Result{RequeueAfter: every}, nil
	}
	st.reconciling(reason, msg)
	return reconcile.Result{RequeueAfter: every}, nil
}

// interval is rel's interval, or the default.
func (r *Reconciler) interval(rel *v1alpha1.Release) time.Duration {
	if d := rel.Spec.Interval.Duration; d > 0 {
		return d
	}
	if r.Options.DefaultInterval > 0 {
		return r.Options.DefaultInterval
	}
	return time.Minute
}
