package controller

import (
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// maxChanges bounds the changes a status lists; maxRuns the runs.
const (
	maxChanges = 100
	maxRuns    = 10
)

// status is the ReleaseStatus one pass builds, starting from what the
// Release had (its applied revision, runs and checks carry over).
type status struct {
	v1alpha1.ReleaseStatus
	generation int64
	// ranRun and ranRev are the run this pass made and its source
	// revision, for history to record.
	ranRun, ranRev string
}

func newStatus(rel *v1alpha1.Release, signer string) *status {
	st := &status{ReleaseStatus: rel.Status.DeepCopy(), generation: rel.Generation}
	st.ObservedGeneration = rel.Generation
	st.Signer = signer
	return st
}

func (st *status) set(typ string, ok bool, reason, msg string) {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: typ, Status: s, Reason: reason, Message: bound(msg, 2048), ObservedGeneration: st.generation,
	})
}

func (st *status) suspended() {
	st.State = v1alpha1.StateSuspended
	st.set(v1alpha1.ConditionReconciling, false, "Suspended", "spec.suspend is set")
}

func (st *status) stalled(reason, msg string) {
	st.State = v1alpha1.StateStalled
	st.set(v1alpha1.ConditionStalled, true, reason, msg)
	st.set(v1alpha1.ConditionReconciling, false, reason, msg)
	st.set(v1alpha1.ConditionReady, false, reason, msg)
}

func (st *status) reconciling(reason, msg string) {
	st.State = v1alpha1.StateFailed
	st.set(v1alpha1.ConditionReconciling, true, reason, msg)
	st.set(v1alpha1.ConditionStalled, false, reason, "")
	st.set(v1alpha1.ConditionReady, false, reason, msg)
}

// planned records the plan of rev; approvedBy is who approved it, or "".
func (st *status) planned(p *plan.Plan, rev source.Revision, approvedBy string) {
	sum := &v1alpha1.PlanSummary{Hash: p.Hash, SourceRevision: rev.String(), PlannedAt: metav1.NewTime(time.Now()), ApprovedBy: approvedBy}
	if st.Plan != nil && st.Plan.Hash == p.Hash {
		sum.PlannedAt = st.Plan.PlannedAt
	}
	sum.Counts = map[string]int32{}
	for a, n := range p.Counts() {
		sum.Counts[string(a)] = int32(n)
	}
	for _, s := range p.Steps {
		if s.Action == plan.NoOp {
			continue
		}
		if len(sum.Changes) == maxChanges {
			sum.More++
			continue
		}
		sum.Changes = append(sum.Changes, changeOf(s))
	}
	st.Plan = sum
	if st.Stopped == nil { // a stopped run's Stalled stays until it is cleared
		st.set(v1alpha1.ConditionStalled, false, "Planned", "")
	}
}

// changeOf is a step without values: the paths of its changed fields.
func changeOf(s plan.Step) v1alpha1.Change {
	c := v1alpha1.Change{Action: string(s.Action), Kind: s.Ref.Kind, Namespace: s.Ref.Namespace, Name: s.Ref.Name}
	for _, ch := range s.Changes {
		c.Fields = append(c.Fields, ch.Path)
	}
	sort.Strings(c.Fields)
	c.Fields = slices.Compact(c.Fields)
	return c
}

func (st *status) awaitingApproval(rel *v1alpha1.Release, p *plan.Plan) {
	st.State = v1alpha1.StateApprovalRequired
	msg := "plan " + p.Hash + " waits for approval: piceli controller approve " + rel.Namespace + "/" + rel.Name + " " + p.ShortHash()
	if st.Plan.PolicyRefused != "" {
		msg += " (the policy does not approve it: " + st.Plan.PolicyRefused + ")"
	}
	st.set(v1alpha1.ConditionApprovalRequired, true, "PlanReady", msg)
	st.set(v1alpha1.ConditionReconciling, false, "ApprovalRequired", msg)
	st.set(v1alpha1.ConditionReady, false, "ApprovalRequired", msg)
}

// applying: the approved plan p is being applied.
func (st *status) applying(p *plan.Plan) {
	st.State = v1alpha1.StateApplying
	msg := "applying plan " + p.Hash
	st.set(v1alpha1.ConditionReconciling, true, "Applying", msg)
	st.set(v1alpha1.ConditionApprovalRequired, false, "Approved", "approved by "+st.Plan.ApprovedBy)
	st.set(v1alpha1.ConditionReady, false, "Applying", msg)
}

// upToDate: the cluster already is what rev declares.
func (st *status) upToDate(rev, hash string) {
	if st.AppliedRevision == "" || st.AppliedRevision != rev {
		st.AppliedRevision = rev
	}
	st.finished("UpToDate", "the cluster is what "+rev+" declares")
}

func (st *status) applied(rev, hash string) {
	st.AppliedRevision, st.AppliedPlan = rev, hash
	st.Failure, st.Drift = nil, nil
	if meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionDrifted) {
		st.set(v1alpha1.ConditionDrifted, false, "Applied", "applied plan "+plan.ShortHash(hash)+" of "+rev)
	}
	st.finished("Applied", "applied plan "+plan.ShortHash(hash)+" of "+rev)
}

func (st *status) finished(reason, msg string) {
	st.State = v1alpha1.StateReady
	st.set(v1alpha1.ConditionReady, true, reason, msg)
	st.set(v1alpha1.ConditionReconciling, false, reason, msg)
	st.set(v1alpha1.ConditionStalled, false, reason, "")
	st.set(v1alpha1.ConditionApprovalRequired, false, reason, "")
}

// ran records how a run went: its checks, and a failure's conditions.
func (r *Reconciler) ran(rel *v1alpha1.Release, st *status, res *release.Result, err error, hash, rev string) {
	outcome := "finished"
	if res != nil {
		outcome = string(res.Phase)
	}
	var held *release.LockHeldError
	if errors.As(err, &held) {
		outcome = "lock-held"
	} else if err != nil && res == nil {
		outcome = "refused"
	}
	r.Metrics.ran(outcome)
	if res != nil {
		st.ranRun, st.ranRev = res.Run, rev
	}
	var checks *release.ChecksFailedError
	if errors.As(err, &checks) {
		st.checks(checks.Failed)
	}
	if err != nil && res != nil {
		st.State = v1alpha1.StateFailed
		st.set(v1alpha1.ConditionReady, false, "RunFailed", err.Error())
		st.set(v1alpha1.ConditionReconciling, false, "RunFailed", err.Error())
		r.Events.warn(rel, "RunFailed", "run "+res.Run+" of plan "+plan.ShortHash(hash)+" ended "+string(res.Phase)+": "+err.Error())
		return
	}
	if err == nil && res != nil {
		r.Events.normal(rel, "Applied", "run "+res.Run+" applied plan "+plan.ShortHash(hash)+" of "+rev)
	}
}

// checks records a run's check results (their errors never carry a
// secret value: package release redacts them).
func (st *status) checks(results []release.CheckResult) {
	st.Checks = nil
	passed := true
	for _, c := range results {
		st.Checks = append(st.Checks, v1alpha1.CheckResult{Name: c.Name, Passed: c.Passed, Message: bound(c.Error, 512)})
		passed = passed && c.Passed
	}
	if !passed {
		st.set(v1alpha1.ConditionChecksPassed, false, "ChecksFailed", "a check of the last run failed")
		return
	}
	st.set(v1alpha1.ConditionChecksPassed, true, "ChecksPassed", "the last run's checks passed")
}

// runChecks reads the checks of run id from its journal.
func (st *status) runChecks(ctx context.Context, rl *release.Release, id string) {
	rep, err := rl.Run(ctx, id)
	if err == nil && rep.Run != nil {
		st.checks(rep.Run.Checks)
	}
}

// history fills the newest runs from the release's shared history: the
// controller's and every laptop's.
func (r *Reconciler) history(ctx context.Context, rl *release.Release, st *status) {
	revs, err := rl.History(ctx, release.HistoryOptions{})
	if err != nil {
		return
	}
	// The source revision of a run is known only to the pass that made
	// it: it carries over from the runs listed before.
	sources := map[string]string{st.ranRun: st.ranRev}
	for _, run := range st.Runs {
		if run.SourceRevision != "" {
			sources[run.ID] = run.SourceRevision
		}
	}
	st.Runs = nil
	for i := len(revs) - 1; i >= 0 && len(st.Runs) < maxRuns; i-- {
		v := revs[i]
		fin := metav1.NewTime(v.Finished)
		st.Runs = append(st.Runs, v1alpha1.RunSummary{
			ID: v.Run, Revision: int32(v.Number), Phase: v.Outcome, Plan: v.Plan, SourceRevision: sources[v.Run],
			Started: metav1.NewTime(v.Started), Finished: &fin, Message: v.Source,
		})
	}
}

// writeStatus writes st as the Release's status, retrying on conflicts;
// a status that did not change is not sent (a quiet pass costs no write
// request), and a Release deleted meanwhile is fine.
func (r *Reconciler) writeStatus(ctx context.Context, key types.NamespacedName, st *status) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur v1alpha1.Release
		if err := r.Client.Get(ctx, key, &cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		if equality.Semantic.DeepEqual(cur.Status, st.ReleaseStatus) {
			return nil
		}
		cur.Status = st.ReleaseStatus
		return r.Client.Status().Update(ctx, &cur)
	})
}

// bound cuts s to at most n bytes.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
