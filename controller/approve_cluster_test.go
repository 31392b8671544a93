package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
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
	writes := h.watchWrites(t, ns)
	time.Sleep(5 * 2 * time.Second) // five intervals
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s while nothing changed: %v", ns, w)
	}
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

// A Release whose plan waits for approval is planned on every pass, and
// writes nothing while that plan stays the plan: not its shared state,
// not its Lease (which a pass that shares its state takes and lets go,
// leaving no resourceVersion behind), not its status. The approval then
// runs that very plan.
func TestAReleaseWaitingForApprovalWritesNothingWhileNothingChanges(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	h.src.set(configMaps("one", "two"))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{})
	rel := h.waitFor(t, ns, "app", "the plan waits for approval", waitingOnPlan)
	time.Sleep(3 * time.Second) // the pass after the first settles
	before, relBefore := h.versions(t, ns), h.release(t, ns, "app")
	if _, ok := before["Secret/piceli-state-app"]; !ok {
		t.Fatalf("objects in %s: %v; want the state the first plan shared", ns, before)
	}
	writes := h.watchWrites(t, ns)
	time.Sleep(5 * 2 * time.Second) // five intervals
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s while the plan waited: %v", ns, w)
	}
	after, relAfter := h.versions(t, ns), h.release(t, ns, "app")
	for obj, v := range after {
		if before[obj] != v {
			t.Errorf("%s was written while the plan waited (resourceVersion %q → %s)", obj, before[obj], v)
		}
	}
	if relAfter.ResourceVersion != relBefore.ResourceVersion || relAfter.Status.Plan.Hash != rel.Status.Plan.Hash {
		t.Errorf("the Release was written while its plan waited: resourceVersion %s → %s, plan %s → %s",
			relBefore.ResourceVersion, relAfter.ResourceVersion, rel.Status.Plan.Hash, relAfter.Status.Plan.Hash)
	}
	h.approve(t, ns, "app", rel.Status.Plan.Hash)
	done := h.waitFor(t, ns, "app", "the approved plan is applied", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })
	if done.Status.AppliedPlan != rel.Status.Plan.Hash {
		t.Fatalf("applied plan %s; want the plan that waited, %s", done.Status.AppliedPlan, rel.Status.Plan.Hash)
	}
}

// watchWrites watches the Leases and Secrets of ns from now on; the
// function it returns stops watching and lists every change seen ("ADDED
// Lease/app"), including objects created and deleted in between. Each
// watch starts at the resourceVersion of a LIST, so what existed before
// is not reported, and a watch the server ends early fails the test: it
// could have missed a write.
func (h *harness) watchWrites(t *testing.T, ns string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(sandboxtest.Context(t, 5*time.Minute))
	cs := h.sb.Clientset
	leaseList, err := cs.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	leases, err := cs.CoordinationV1().Leases(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: leaseList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	secretList, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := cs.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: secretList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	stopping, endedEarly := false, false
	var wg sync.WaitGroup
	collect := func(kind string, w watch.Interface) {
		defer wg.Done()
		for ev := range w.ResultChan() {
			if m, ok := ev.Object.(metav1.Object); ok && ev.Type != watch.Bookmark {
				mu.Lock()
				seen = append(seen, fmt.Sprintf("%s %s/%s", ev.Type, kind, m.GetName()))
				mu.Unlock()
			}
		}
		mu.Lock()
		endedEarly = endedEarly || !stopping
		mu.Unlock()
	}
	wg.Add(2)
	go collect("Lease", leases)
	go collect("Secret", secrets)
	return func() []string {
		mu.Lock()
		stopping = true
		mu.Unlock()
		cancel()
		leases.Stop()
		secrets.Stop()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		if endedEarly {
			t.Errorf("a watch of %s ended before the quiet window did; writes may have been missed", ns)
		}
		return seen
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
