package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/refusal"
)

// manyConfigMaps adds n ConfigMaps to files.
func manyConfigMaps(files map[string]string, n int) map[string]string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%04d\ndata:\n  value: %q\n", i, strings.Repeat("x", 512))
	}
	files["many.yaml"] = b.String()
	return files
}

// #35: `controller stop` ends a running apply after its writes in flight,
// and the Release is never stuck in progress: it shows Stalled, reason
// Stopped, with the run; the controller does not resume the run by
// itself (the policy approves nothing meanwhile), and the next plan
// approved by hash runs.
func TestControllerStopEndsTheRunningApplyAndTheNextApprovedPlanRuns(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	key := types.NamespacedName{Namespace: ns, Name: "app"}
	ctx := sandboxtest.Context(t, 5*time.Minute)
	target := controller.Target{Kubeconfig: h.sb.Kubeconfig, Context: h.sb.Context}

	// Nothing runs yet: a stop is refused, with nothing written.
	h.src.set(manyConfigMaps(webDeployment(h.sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)), 300))
	if _, err := controller.Stop(ctx, target, types.NamespacedName{Namespace: ns, Name: "nope"}); !refusal.Is(err) {
		t.Fatalf("stop of a missing Release: %v; want a refusal", err)
	}
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
		Policy:       &v1alpha1.Policy{Actions: []string{"create", "update"}},
		ReadyTimeout: metav1.Duration{Duration: 3 * time.Minute},
	})
	// The Deployment never becomes ready: the run is in progress until it
	// is stopped (in the ConfigMaps' wave or in the readiness wait).
	h.waitFor(t, ns, "app", "the apply runs", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateApplying })
	var req *controller.StopRequest
	eventually(t, 30*time.Second, "a stop is accepted", func() bool {
		var err error
		req, err = controller.Stop(ctx, target, key)
		if err != nil && !refusal.Is(err) {
			t.Fatal(err)
		}
		return err == nil
	})
	if req.Schema != controller.StopSchema || req.Run == "" || !strings.Contains(req.Through, "lease "+ns+"/") {
		t.Fatalf("stop request %+v", req)
	}
	stopped := time.Now()
	rel := h.waitFor(t, ns, "app", "the run ends stopped and the Release shows it", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateStalled && r.Status.Stopped != nil
	})
	t.Logf("the run stopped %s after the request", time.Since(stopped).Round(time.Millisecond))
	if rel.Status.Stopped.Run != req.Run || !strings.Contains(stalledMessage(rel), "stopped on request") || !strings.Contains(stalledMessage(rel), req.Run) {
		t.Fatalf("stopped %+v, message %q; want run %s", rel.Status.Stopped, stalledMessage(rel), req.Run)
	}
	if rel.Status.AppliedRevision != "" {
		t.Fatalf("a stopped run counts as applied: %s", rel.Status.AppliedRevision)
	}

	// The pass after the stop plans afresh (the stopped run wrote some of
	// its objects) and stores and shares that plan. Five intervals later:
	// the run is not resumed nor a new one started by the policy, nothing
	// more is written while that plan waits, and the Release still shows
	// Stopped with it.
	h.waitFor(t, ns, "app", "a fresh plan follows the stopped one", func(r *v1alpha1.Release) bool {
		return r.Status.Stopped != nil && r.Status.Plan != nil && r.Status.Plan.Hash != r.Status.Stopped.Plan
	})
	time.Sleep(2 * time.Second) // the pass that made it settles
	before := h.versions(t, ns)
	writes := h.watchWrites(t, ns)
	time.Sleep(5 * 2 * time.Second)
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s after the stop, while the fresh plan waited: %v", ns, w)
	}
	for obj, v := range h.versions(t, ns) {
		if (strings.HasPrefix(obj, "ConfigMap/cm-") || obj == "Deployment/web") && before[obj] != v {
			t.Errorf("%s was written after the stop (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
	rel = h.release(t, ns, "app")
	if rel.Status.State != v1alpha1.StateStalled || rel.Status.Stopped == nil || rel.Status.Plan == nil || rel.Status.Plan.ApprovedBy != "" {
		t.Fatalf("after five intervals: state %s, stopped %+v, plan %+v; want Stalled, Stopped, a plan waiting", rel.Status.State, rel.Status.Stopped, rel.Status.Plan)
	}
	if _, err := controller.Stop(ctx, target, key); !refusal.Is(err) {
		t.Fatalf("a second stop with no run in progress: %v; want a refusal", err)
	}

	// A new revision (whose Deployment becomes ready) is planned; its plan
	// approved by hash runs.
	h.src.set(manyConfigMaps(webDeployment(nil), 300))
	next, err := h.src.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rel = h.waitFor(t, ns, "app", "the new revision's plan is shown", func(r *v1alpha1.Release) bool {
		return r.Status.Plan != nil && r.Status.Plan.SourceRevision == next.String() && r.Status.State == v1alpha1.StateStalled && r.Status.Stopped != nil
	})
	approved := time.Now()
	t.Logf("approving plan %s of %s", rel.Status.Plan.Hash, rel.Status.Plan.SourceRevision)
	h.approve(t, ns, "app", rel.Status.Plan.Hash)
	rel = h.waitFor(t, ns, "app", "the approved plan runs and the Release is Ready", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && r.Status.AppliedRevision == r.Status.SourceRevision
	})
	t.Logf("the next approved plan was Ready %s after its approval", time.Since(approved).Round(time.Millisecond))
	if rel.Status.Stopped != nil {
		t.Fatalf("status.stopped %+v after the next run", rel.Status.Stopped)
	}
}
