package controller

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/release"
)

// syncAsked says whether `piceli controller sync` asked for a pass that
// the Release's stored status has not answered yet (held records the
// answer in this pass's status, a copy).
func syncAsked(rel *v1alpha1.Release) bool {
	return rel.Annotations[v1alpha1.SyncAnnotation] != rel.Status.Synced
}

// held says whether this pass must leave rev alone because its runs
// failed: one whose checks failed, or that failed MaxAttempts times, waits
// for a new revision or a sync (Stalled, nothing written); one that failed
// fewer times waits out its backoff. A new sync annotation clears the
// record and lets the revision be tried again.
func (r *Reconciler) held(rel *v1alpha1.Release, st *status, rev source.Revision) (reconcile.Result, bool) {
	if a := rel.Annotations[v1alpha1.SyncAnnotation]; a != "" && a != st.Synced {
		st.Synced = a
		if f := st.Failure; f != nil {
			// Its record stays, its count starts again: the revision's
			// objects may all be written and not ready, so even a plan
			// that changes nothing is run again.
			f.Attempts, f.ChecksFailed, f.NextAttempt = 0, false, metav1.Time{}
			r.Events.normal(rel, "Sync", "sync requested: trying "+rev.String()+" again")
		}
		return reconcile.Result{}, false
	}
	f := st.Failure
	if f == nil || f.SourceRevision != rev.String() {
		st.Failure = nil
		return reconcile.Result{}, false
	}
	if f.ChecksFailed || f.Attempts >= v1alpha1.MaxAttempts {
		st.stalled("RunFailed", giveUpMessage(f))
		return reconcile.Result{RequeueAfter: r.interval(rel)}, true
	}
	if wait := time.Until(f.NextAttempt.Time); wait > 0 {
		st.reconciling("BackingOff", fmt.Sprintf("run %d of %d of %s failed (%s); the next starts in %s", f.Attempts, v1alpha1.MaxAttempts, f.SourceRevision, f.Message, wait.Round(time.Second)))
		return reconcile.Result{RequeueAfter: wait}, true
	}
	return reconcile.Result{}, false
}

// failedRun records a failed run of rev and says when to look again: a
// run whose checks failed, or the last allowed attempt, stalls the
// Release; any other waits out the backoff.
func (r *Reconciler) failedRun(rel *v1alpha1.Release, st *status, rev string, err error) reconcile.Result {
	f := st.Failure
	if f == nil || f.SourceRevision != rev {
		f = &v1alpha1.FailureStatus{SourceRevision: rev}
		st.Failure = f
	}
	var checks *release.ChecksFailedError
	f.Attempts++
	f.ChecksFailed = errors.As(err, &checks)
	f.Message = bound(err.Error(), 1024)
	wait := r.Options.backoff(f.Attempts)
	f.NextAttempt = metav1.NewTime(time.Now().Add(wait))
	if f.ChecksFailed || f.Attempts >= v1alpha1.MaxAttempts {
		msg := giveUpMessage(f)
		st.stalled("RunFailed", msg)
		r.Events.warn(rel, "Stalled", msg)
		return reconcile.Result{RequeueAfter: r.interval(rel)}
	}
	return reconcile.Result{RequeueAfter: wait}
}

func giveUpMessage(f *v1alpha1.FailureStatus) string {
	why := fmt.Sprintf("%d runs of %s failed", f.Attempts, f.SourceRevision)
	if f.ChecksFailed {
		why = fmt.Sprintf("the checks of %s failed", f.SourceRevision)
	}
	return why + " (" + f.Message + "); it is not tried again until a new revision or `piceli controller sync`"
}
