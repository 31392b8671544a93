package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// ApprovedByDrift approves a plan that only restores what the applied
// revision declares, in drift mode correct (PlanSummary.ApprovedBy).
const ApprovedByDrift = "spec.drift.mode=correct"

// maxDrifted bounds the objects a drift status lists.
const maxDrifted = 100

// driftClock remembers when each Release's live objects were last
// compared, so that a drift interval longer than the Release's interval
// skips the passes between. It is memory only: a restarted controller
// compares at once.
type driftClock struct {
	mu   sync.Mutex
	last map[types.NamespacedName]time.Time
}

// due says whether key's live objects are to be compared now, every.
func (c *driftClock) due(key types.NamespacedName, every time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A pass requeued after exactly every may run a little early.
	return time.Since(c.last[key]) >= every-every/10
}

func (c *driftClock) checked(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[types.NamespacedName]time.Time{}
	}
	c.last[key] = time.Now()
}

// forget drops a deleted Release.
func (c *driftClock) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.last, key)
}

// driftMode is rel's drift mode, report by default.
func driftMode(rel *v1alpha1.Release) string {
	if rel.Spec.Drift == nil || rel.Spec.Drift.Mode == "" {
		return v1alpha1.DriftReport
	}
	return rel.Spec.Drift.Mode
}

// driftInterval is how often rel's live objects are compared.
func (r *Reconciler) driftInterval(rel *v1alpha1.Release) time.Duration {
	if d := rel.Spec.Drift; d != nil && d.Interval.Duration > 0 {
		return d.Interval.Duration
	}
	return r.interval(rel)
}

// settled says whether rel has applied rev and nothing about the Release
// changed since: its live objects are then compared with rev (watch)
// instead of planned again. A spec that changed (generation) is planned.
func settled(rel *v1alpha1.Release, st *status, rev source.Revision) bool {
	ready := st.State == v1alpha1.StateReady || st.State == v1alpha1.StateDrifted
	return ready && st.AppliedRevision == rev.String() && rel.Status.ObservedGeneration == rel.Generation
}

// watch compares the live objects of the applied revision rev with what
// it declares, when a comparison is due, and reports or corrects what
// differs as rel's drift mode says. A comparison is a Diff: it stores
// nothing and writes nothing, and a finding already reported changes no
// status either.
func (r *Reconciler) watch(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, rev source.Revision, st *status) (reconcile.Result, error) {
	every := min(r.interval(rel), r.driftInterval(rel))
	mode := driftMode(rel)
	if mode == v1alpha1.DriftOff {
		st.Drift = nil
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.ConditionDrifted)
		st.State = v1alpha1.StateReady
		r.Metrics.planned(false)
		return reconcile.Result{RequeueAfter: r.interval(rel)}, nil
	}
	key := types.NamespacedName{Namespace: rel.Namespace, Name: rel.Name}
	if !r.drift.due(key, r.driftInterval(rel)) {
		return reconcile.Result{RequeueAfter: every}, nil
	}
	d, err := rl.Diff(ctx, release.PlanOptions{Reclaim: true})
	r.drift.checked(key)
	if err != nil {
		return r.failed(rel, st, "DriftCheckFailed", err, every)
	}
	found := driftOf(d, rev.String())
	r.Metrics.planned(found != nil)
	if found == nil {
		st.noDrift(rev.String())
		return reconcile.Result{RequeueAfter: every}, nil
	}
	st.drifted(found)
	r.Events.once(rel, "Drifted", found.Summary())
	if mode != v1alpha1.DriftCorrect {
		return reconcile.Result{RequeueAfter: every}, nil
	}
	if why := uncorrectable(d); why != "" {
		st.Drift.Uncorrected = why
		st.set(v1alpha1.ConditionDrifted, true, "NotCorrected", found.Summary()+"; not corrected: "+why)
		return reconcile.Result{RequeueAfter: every}, nil
	}
	return r.correct(ctx, rel, rl, rev, st)
}

// correct plans the restoration of the drift st reports, approves it
// itself when it only restores (uncorrectable), and applies it.
func (r *Reconciler) correct(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, rev source.Revision, st *status) (reconcile.Result, error) {
	every := min(r.interval(rel), r.driftInterval(rel))
	p, err := rl.Plan(ctx, release.PlanOptions{Reclaim: true})
	if err != nil {
		return r.failed(rel, st, "PlanFailed", err, every)
	}
	r.Metrics.planned(p.Changed())
	if why := uncorrectable(p); why != "" {
		st.Drift.Uncorrected = why
		st.set(v1alpha1.ConditionDrifted, true, "NotCorrected", "not corrected: "+why)
		return reconcile.Result{RequeueAfter: every}, nil
	}
	found := st.Drift
	st.planned(p, rev, ApprovedByDrift)
	res, err := r.apply(ctx, rel, rl, p, rev, st, release.RunOptions{Reclaim: true})
	if err != nil || st.State != v1alpha1.StateReady {
		return res, err
	}
	found.Corrected = st.latestRun()
	st.Drift = found
	msg := "restored " + found.Summary() + " (run " + found.Corrected + ")"
	st.set(v1alpha1.ConditionDrifted, false, "Corrected", msg)
	r.Events.normal(rel, "DriftCorrected", msg)
	return res, nil
}

// uncorrectable says why p is not a plan drift correction may approve by
// itself, or "" when it is: it changes only objects of the applied
// revision, by updates (taking back fields others edited) and by creating
// objects someone deleted. A blocked step (a field another manager owns
// by server-side apply), a delete, a replace or an adoption is left to a
// person.
func uncorrectable(p *plan.Plan) string {
	if b := p.Blocked(); len(b) > 0 {
		return strings.Join(b, "; ")
	}
	for _, s := range p.Steps {
		switch s.Action {
		case plan.NoOp, plan.Update, plan.Create:
		default:
			return fmt.Sprintf("restoring %s would %s it, which drift correction never does by itself", s.Ref, s.Action)
		}
	}
	return ""
}

// driftOf is what the Diff d of the applied revision rev finds changed, or
// nil when nothing is.
func driftOf(d *plan.Plan, rev string) *v1alpha1.DriftStatus {
	found := &v1alpha1.DriftStatus{Since: metav1.NewTime(time.Now()), Revision: rev}
	for _, o := range d.Drift() {
		if len(found.Objects) == maxDrifted {
			found.More++
			continue
		}
		found.Objects = append(found.Objects, driftedObject(o))
	}
	if len(found.Objects) == 0 {
		return nil
	}
	return found
}

// driftedObject is o as the API says it.
func driftedObject(o plan.DriftedObject) v1alpha1.DriftedObject {
	out := v1alpha1.DriftedObject{Kind: o.Ref.Kind, Namespace: o.Ref.Namespace, Name: o.Ref.Name, Action: string(plan.Update)}
	if o.Deleted {
		out.Action = string(plan.Create)
	}
	for _, f := range o.Fields {
		out.Fields = append(out.Fields, v1alpha1.DriftedField{Path: f.Path, Manager: f.Manager, Applied: f.Applied})
	}
	return out
}

// sameDrift says whether a and b list the same objects and fields.
func sameDrift(a, b *v1alpha1.DriftStatus) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Revision == b.Revision && a.More == b.More && slices.EqualFunc(a.Objects, b.Objects, func(x, y v1alpha1.DriftedObject) bool {
		return x.Kind == y.Kind && x.Namespace == y.Namespace && x.Name == y.Name && x.Action == y.Action && slices.Equal(x.Fields, y.Fields)
	})
}

// drifted records found; the same finding as before keeps its Since, so
// a pass that finds nothing new writes nothing.
func (st *status) drifted(found *v1alpha1.DriftStatus) {
	if sameDrift(st.Drift, found) && st.Drift.Corrected == "" {
		found = st.Drift
	}
	st.Drift = found
	st.State = v1alpha1.StateDrifted
	msg := found.Summary()
	st.set(v1alpha1.ConditionDrifted, true, "LiveObjectsChanged", msg)
	st.set(v1alpha1.ConditionReady, false, "Drifted", msg)
}

// noDrift records that the live objects match rev; the record of a
// correction stays until the next drift.
func (st *status) noDrift(rev string) {
	if st.Drift != nil && st.Drift.Corrected == "" {
		st.Drift = nil
	}
	st.State = v1alpha1.StateReady
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDrifted); c == nil || c.Status != metav1.ConditionFalse {
		st.set(v1alpha1.ConditionDrifted, false, "NoDrift", "the live objects are what "+rev+" declares")
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		st.set(v1alpha1.ConditionReady, true, "NoDrift", "the live objects are what "+rev+" declares")
	}
}

// latestRun is the ID of the newest run status lists, or "".
func (st *status) latestRun() string {
	if len(st.Runs) == 0 {
		return ""
	}
	return st.Runs[0].ID
}
