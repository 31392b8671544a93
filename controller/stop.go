package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// StopSchema versions the document `piceli controller stop -o json`
// prints.
const StopSchema = "piceli.controller-stop/v1"

// StopRequest is a stop asked of a Release's running apply.
type StopRequest struct {
	Schema    string `json:"schema"` // StopSchema
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Run is the run asked to stop; Holder who runs it (the controller's
	// replica, or a laptop or CI runner of the same release).
	Run    string `json:"run"`
	Holder string `json:"holder"`
	// Through is the Lease the request was written on.
	Through string `json:"through"`
}

// Stop asks the run that applies the Release key now to stop once its
// writes in flight settle, as `piceli release stop` does for a release
// whose state is shared: it writes the request on the release's Lease (in
// the target namespace, named after spec.releaseName or the Release),
// where the run finds it between its writes, at its next wave or within
// seconds of a readiness wait. The run ends "stopped"; the controller does
// not resume it by itself, and the Release waits, Stalled with reason
// Stopped, for a fresh plan approved by its hash (or a sync). A Release
// with no run in progress is a refusal (refusal.Is) with nothing written.
func Stop(ctx context.Context, t Target, key types.NamespacedName) (*StopRequest, error) {
	c, err := Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	rel, err := getRelease(ctx, c, key)
	if err != nil {
		return nil, err
	}
	kc, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context, AllowExec: t.AllowExec})
	if err != nil {
		return nil, refusal.New(err)
	}
	ns, name := targetNamespace(rel), releaseName(rel)
	where := ns + "/" + lock.LeaseName(name)
	h, ok, err := lock.LeaseHolder(ctx, kc.Clientset, ns, name)
	if err != nil {
		return nil, err
	}
	if !ok || h.Run == "" {
		return nil, refusal.Errorf("release %s has no run in progress (lease %s is not held for one), so there is nothing to stop", key, where)
	}
	held, err := lock.RequestStop(ctx, kc.Clientset, ns, name, h.Run, whoAmI())
	if errors.Is(err, lock.ErrNotHeldForRun) {
		return nil, refusal.Errorf("release %s: run %s ended meanwhile, so there is nothing to stop", key, h.Run)
	}
	if err != nil {
		return nil, err
	}
	return &StopRequest{Schema: StopSchema, Namespace: key.Namespace, Name: key.Name, Run: h.Run, Holder: held.String(), Through: "lease " + where}, nil
}

// stoppedRun records a run that ended on a stop request: someone stopped
// it on purpose, so it is neither resumed nor retried; the Release waits,
// Stalled, for a fresh plan approved by hash or a sync.
func (r *Reconciler) stoppedRun(rel *v1alpha1.Release, st *status, res *release.Result, hash string, rev source.Revision) reconcile.Result {
	st.Stopped = &v1alpha1.StoppedRun{Run: res.Run, Plan: hash, SourceRevision: rev.String(), At: metav1.NewTime(time.Now().UTC().Truncate(time.Second))}
	msg := stoppedMessage(rel, st.Stopped)
	st.stalled("Stopped", msg)
	r.Events.warn(rel, "Stopped", msg)
	return reconcile.Result{RequeueAfter: r.interval(rel)}
}

func stoppedMessage(rel *v1alpha1.Release, s *v1alpha1.StoppedRun) string {
	return fmt.Sprintf("run %s of plan %s (%s) was stopped on request and is not resumed; approve a fresh plan by its hash (piceli controller approve %s/%s HASH) or run piceli controller sync %s/%s",
		s.Run, plan.ShortHash(s.Plan), s.SourceRevision, rel.Namespace, rel.Name, rel.Namespace, rel.Name)
}

// stillStopped says whether a Release whose last run was stopped still
// waits after planning p: until a person approves by hash a plan other
// than the stopped one, or asks for a sync; the policy alone never goes
// on after a stop.
func (r *Reconciler) stillStopped(rel *v1alpha1.Release, st *status, p *plan.Plan) bool {
	s := st.Stopped
	if s == nil {
		return false
	}
	synced := st.Synced != rel.Status.Synced
	approved := st.Plan.ApprovedBy == ApprovedBySpec && p.Hash != s.Plan
	if synced || approved {
		st.Stopped = nil
		return false
	}
	st.Plan.ApprovedBy = ""
	st.stalled("Stopped", stoppedMessage(rel, s))
	return true
}
