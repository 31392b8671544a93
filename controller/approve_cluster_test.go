package controller_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

func configMaps(values ...string) map[string]string {
	files := map[string]string{}
	for i, v := range values {
		files[fmt.Sprintf("cm-%d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  value: %q\n", i, v)
	}
	return files
}

func waitingOnPlan(rel *v1alpha1.Release) bool {
	return rel.Status.State == v1alpha1.StateApprovalRequired && rel.Status.Plan != nil
}

func (h *harness) configMap(t *testing.T, ns, name string) (*corev1.ConfigMap, bool) {
	t.Helper()
	var cm corev1.ConfigMap
	err := h.client.Get(sandboxtest.Context(t, 30*time.Second), types.NamespacedName{Namespace: ns, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return &cm, true
}

func TestControllerAppliesARevisionOnlyAfterItsHashIsApproved(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	h.src.set(configMaps("one", "two"))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{})

	rel := h.waitFor(t, ns, "app", "the first plan waits for approval", waitingOnPlan)
	first := rel.Status.Plan
	if first.Counts["create"] != 2 || len(first.Changes) != 2 {
		t.Fatalf("first plan: counts %v, changes %v; want two creates", first.Counts, first.Changes)
	}
	time.Sleep(3 * time.Second) // more than one interval
	if _, ok := h.configMap(t, ns, "cm-0"); ok {
		t.Fatal("cm-0 was written before anyone approved the plan")
	}

	h.approve(t, ns, "app", first.Hash)
	rel = h.waitFor(t, ns, "app", "the approved plan is applied", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })
	if rel.Status.AppliedPlan != first.Hash || rel.Status.AppliedRevision != first.SourceRevision {
		t.Fatalf("applied plan %s of %s; want %s of %s", rel.Status.AppliedPlan, rel.Status.AppliedRevision, first.Hash, first.SourceRevision)
	}
	if len(rel.Status.Runs) != 1 || rel.Status.Runs[0].Plan != first.Hash {
		t.Fatalf("runs in status: %+v; want the one run of %s", rel.Status.Runs, first.Hash)
	}
	if cm, ok := h.configMap(t, ns, "cm-1"); !ok || cm.Data["value"] != "two" {
		t.Fatalf("cm-1 after the run: %+v", cm)
	}

	h.src.set(configMaps("one", "three"))
	rel = h.waitFor(t, ns, "app", "revision 2 is planned", func(r *v1alpha1.Release) bool {
		return waitingOnPlan(r) && r.Status.Plan.Hash != first.Hash
	})
	second := rel.Status.Plan
	if len(second.Changes) != 1 || second.Changes[0].Name != "cm-1" || second.Changes[0].Action != "update" ||
		len(second.Changes[0].Fields) != 1 || second.Changes[0].Fields[0] != "data.value" {
		t.Fatalf("revision 2's plan changes %+v; want exactly cm-1's data.value", second.Changes)
	}
	if err := h.approveErr(t, ns, "app", first.Hash); err == nil {
		t.Fatal("approving the old plan's hash was accepted")
	}
	h.approve(t, ns, "app", second.Hash[:19])
	h.waitFor(t, ns, "app", "revision 2 is applied", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && r.Status.AppliedPlan == second.Hash
	})
	if cm, _ := h.configMap(t, ns, "cm-1"); cm.Data["value"] != "three" {
		t.Fatalf("cm-1 after revision 2: %v", cm.Data)
	}

	// A deleted Release leaves nothing in the work directory.
	work := filepath.Join(h.workDir, "releases", ns, "app")
	if _, err := os.Stat(work); err != nil {
		t.Fatalf("the Release's work directory: %v", err)
	}
	if err := h.client.Delete(sandboxtest.Context(t, 30*time.Second), rel); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the deleted Release's work directory is removed", func() bool {
		_, err := os.Stat(work)
		return os.IsNotExist(err)
	})
}

// A Release that is Ready stays quiet while nothing changes: each pass
// resolves the source and diffs the release against the cluster, and
// writes nothing, not even to its Lease or its shared state.
func TestAReadyReleaseWritesNothingWhileNothingChanges(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	h.src.set(configMaps("one", "two"))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{Policy: &v1alpha1.Policy{Actions: []string{"create"}}})
	h.waitFor(t, ns, "app", "the release is applied", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })
	time.Sleep(3 * time.Second) // the pass after the run settles
	before := h.versions(t, ns)
	time.Sleep(5 * 2 * time.Second) // five intervals
	after := h.versions(t, ns)
	if len(before) < 3 {
		t.Fatalf("objects in %s: %v; want the ConfigMaps, the Lease and the state", ns, before)
	}
	for obj, v := range after {
		if before[obj] != v {
			t.Errorf("%s was written while nothing changed (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
}

// versions maps each ConfigMap, Secret, Lease, Service and Deployment of
// ns to its resourceVersion: any write to one changes it.
func (h *harness) versions(t *testing.T, ns string) map[string]string {
	t.Helper()
	ctx := sandboxtest.Context(t, 30*time.Second)
	out := map[string]string{}
	lists := map[string]client.ObjectList{
		"ConfigMap": &corev1.ConfigMapList{}, "Secret": &corev1.SecretList{}, "Lease": &coordinationv1.LeaseList{},
		"Service": &corev1.ServiceList{}, "Deployment": &appsv1.DeploymentList{},
	}
	for kind, l := range lists {
		if err := h.client.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range items {
			m := o.(client.Object)
			out[kind+"/"+m.GetName()] = m.GetResourceVersion()
		}
	}
	return out
}
