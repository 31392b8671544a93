package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// revisionIDRE is the ID of a source revision: an OCI digest or a commit.
var revisionIDRE = regexp.MustCompile(`^(sha256:[0-9a-f]{64}|[0-9a-f]{40})$`)

// ParseRevision reads a source revision as status writes it: REF@ID or
// ID, where ID is sha256: and 64 hex digits or a 40-hex commit. Anything
// else is a refusal.
func ParseRevision(s string) (source.Revision, error) {
	ref, id := "", s
	if i := strings.LastIndex(s, "@"); i >= 0 {
		ref, id = s[:i], s[i+1:]
	}
	if !revisionIDRE.MatchString(id) || (strings.Contains(s, "@") && ref == "") {
		return source.Revision{}, refusal.Errorf("%q is not a source revision (REF@ID or ID, ID a sha256: digest or a 40-hex commit)", bound(s, 128))
	}
	return source.Revision{ID: id, Ref: ref}, nil
}

// pinned handles a Release whose spec.pin holds it at a revision; done
// says the pass ends here. Without a pin it only clears what an earlier
// pin left in the status.
//
// The pinned revision is planned and applied like any revision (approved
// by spec.approve or the policy). The source's latest revision, when it
// is another, is planned without storing anything (a Diff) and shown in
// status.plan once the pinned revision runs; the policy never approves
// it. A person who approves its hash ends the pin: the controller applies
// that plan and removes spec.pin.
func (r *Reconciler) pinned(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, latest *source.Content, st *status) (res reconcile.Result, done bool, err error) {
	pin := rel.Spec.Pin
	if pin == nil {
		st.Pin = nil
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.ConditionPinned)
		return reconcile.Result{}, false, nil
	}
	every := r.interval(rel)
	want, err := ParseRevision(pin.Revision)
	if err != nil {
		res, err := r.failed(rel, st, "PinRefused", fmt.Errorf("spec.pin.revision: %w", err), every)
		return res, true, err
	}
	st.Pin = &v1alpha1.PinStatus{Pin: *pin.DeepCopy(), LatestRevision: latest.Revision.String()}
	var newer *plannedLatest
	if latest.Revision.ID != want.ID {
		d, err := rl.Diff(ctx, release.PlanOptions{})
		if err != nil {
			res, err := r.failed(rel, st, "PlanFailed", err, every)
			return res, true, err
		}
		if d.Hash, err = release.PlanHash(d); err != nil {
			res, err := r.failed(rel, st, "PlanFailed", err, every)
			return res, true, err
		}
		st.Pin.LatestPlan = d.Hash
		if rel.Spec.Approve != "" && rel.Spec.Approve == d.Hash && len(d.Blocked()) == 0 {
			res, err := r.unpinByApproval(ctx, rel, rl, latest.Revision, st)
			return res, true, err
		}
		newer = &plannedLatest{rev: latest.Revision, plan: d}
		defer func() { newer.show(st, want) }()
	}
	content, err := r.fetchRevision(ctx, rel, want)
	if err != nil {
		res, err := r.failed(rel, st, "SourceFailed", fmt.Errorf("fetch the pinned revision %s: %w", want, err), every)
		return res, true, err
	}
	rlp, err := r.open(rel, content)
	if err != nil {
		res, err := r.failed(rel, st, "SpecRefused", err, every)
		return res, true, err
	}
	st.setPinned(rel, want, newer)
	if res, wait := r.held(rel, st, want); wait {
		return res, true, nil
	}
	if settled(rel, st, want) && !syncAsked(rel) {
		res, err := r.atRest(ctx, rel, rlp, want, st, newer)
		return res, true, err
	}
	if r.unchanged(ctx, rlp, st, want) {
		r.Metrics.planned(false)
		if newer != nil {
			newer.atRest = true
		}
		return reconcile.Result{RequeueAfter: every}, true, nil
	}
	// The newer plan was made against the cluster before this pass's
	// apply: it is shown from the next pass on.
	res, err = r.planAndApply(ctx, rel, rlp, want, st)
	return res, true, err
}

// atRest watches a pinned revision that runs for drift as any applied
// revision is watched: its drift mode decides, never the policy, so a
// pinned Release in report mode writes nothing however its objects are
// edited. The newer plan is shown unless this pass corrected drift (it was
// made before that run).
func (r *Reconciler) atRest(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, pinned source.Revision, st *status, newer *plannedLatest) (reconcile.Result, error) {
	ran := st.latestRun()
	res, err := r.watch(ctx, rel, rl, pinned, st)
	if newer != nil {
		newer.atRest = err == nil && st.latestRun() == ran
	}
	return res, err
}

// plannedLatest is the source's latest revision a pin holds back, and its
// plan.
type plannedLatest struct {
	rev    source.Revision
	plan   *plan.Plan
	atRest bool // the pinned revision runs: the newer plan is shown
}

// show puts the newer revision's plan into status.plan once the pinned
// revision runs, so `piceli controller approve` can approve it.
func (n *plannedLatest) show(st *status, pinned source.Revision) {
	if n == nil || !n.atRest {
		return
	}
	st.planned(n.plan, n.rev, "")
	st.Plan.PolicyRefused = "the Release is pinned to " + pinned.String() + "; approve this plan by its hash to apply it and end the pin, or unpin"
}

// setPinned records the Pinned condition.
func (st *status) setPinned(rel *v1alpha1.Release, want source.Revision, newer *plannedLatest) {
	msg := "pinned to " + want.String()
	if p := rel.Spec.Pin; p.By != "" {
		msg += " by " + p.By
	}
	if p := rel.Spec.Pin; p.Reason != "" {
		msg += " (" + p.Reason + ")"
	}
	if newer != nil {
		msg += fmt.Sprintf("; the source's latest revision %s (plan %s: %s) is not applied until `piceli controller unpin %s/%s` or its plan is approved by hash", newer.rev, st.Pin.LatestPlan, newer.plan.Summary(), rel.Namespace, rel.Name)
	}
	st.set(v1alpha1.ConditionPinned, true, "Pinned", msg)
}

// unpinByApproval applies the latest revision's plan a person approved by
// hash while the Release was pinned, and then removes the pin. The policy
// plays no part: only that exact plan may end a pin.
func (r *Reconciler) unpinByApproval(ctx context.Context, rel *v1alpha1.Release, rl *release.Release, rev source.Revision, st *status) (reconcile.Result, error) {
	byHand := rel.DeepCopy()
	byHand.Spec.Policy = nil
	res, err := r.planAndApply(ctx, byHand, rl, rev, st)
	if err != nil || st.State != v1alpha1.StateReady || st.AppliedRevision != rev.String() || st.Plan == nil || st.Plan.ApprovedBy != ApprovedBySpec {
		return res, err
	}
	if err := dropPin(ctx, r.Client, client.ObjectKeyFromObject(rel), rel.Spec.Pin.Revision); err != nil {
		return res, err
	}
	r.Events.normal(rel, "Unpinned", fmt.Sprintf("plan %s of %s was approved by hash and applied; the pin to %s is removed", st.Plan.Hash, rev, rel.Spec.Pin.Revision))
	st.Pin = nil
	meta.RemoveStatusCondition(&st.Conditions, v1alpha1.ConditionPinned)
	return res, nil
}

// dropPin removes spec.pin if it still pins revision: a pin written
// meanwhile (another rollback) stays.
func dropPin(ctx context.Context, c client.Client, key types.NamespacedName, revision string) error {
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/pin/revision", "value": revision},
		{"op": "remove", "path": "/spec/pin"},
	})
	if err != nil {
		return err
	}
	var rel v1alpha1.Release
	rel.Namespace, rel.Name = key.Namespace, key.Name
	return c.Patch(ctx, &rel, client.RawPatch(types.JSONPatchType, patch))
}

// fetchRevision fetches rev of rel's source (not the one it resolves to
// now), keeping the latest one fetched beside it.
func (r *Reconciler) fetchRevision(ctx context.Context, rel *v1alpha1.Release, rev source.Revision) (*source.Content, error) {
	src, err := r.sourceOf(ctx, rel)
	if err != nil {
		return nil, err
	}
	ws, err := workspaceOf(r.Options.WorkDir, rel.Namespace, rel.Name)
	if err != nil {
		return nil, err
	}
	return ws.fetch(ctx, src, rev, pinnedIDs(rel)...)
}

// sourceOf builds rel's source with its credentials.
func (r *Reconciler) sourceOf(ctx context.Context, rel *v1alpha1.Release) (source.Source, error) {
	creds, err := r.credentials(ctx, rel)
	if err != nil {
		return nil, err
	}
	if r.NewSource != nil {
		return r.NewSource(rel.Spec.Source, creds)
	}
	return source.New(rel.Spec.Source, creds, source.Options{})
}

// pinnedIDs are the revisions a fetch keeps besides the one it fetches:
// the pinned one and the latest, so a pinned Release does not fetch both
// again every pass.
func pinnedIDs(rel *v1alpha1.Release) []string {
	var out []string
	if p := rel.Spec.Pin; p != nil {
		if rev, err := ParseRevision(p.Revision); err == nil {
			out = append(out, rev.ID)
		}
	}
	if rel.Status.SourceRevision != "" {
		if rev, err := ParseRevision(rel.Status.SourceRevision); err == nil {
			out = append(out, rev.ID)
		}
	}
	return out
}
