package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestPlanShowsAnotherManagersField applies hello, lets another field
// manager change the replicas the release sets, and expects a blocked
// step naming that manager and field.
func TestPlanShowsAnotherManagersField(t *testing.T) {
	f := example(t, "hello")
	f.applyAll(t)
	patch := []byte(`{"spec":{"replicas":3}}`)
	_, err := f.sb.Dynamic.Resource(deployments).Namespace(f.ns).Patch(sandboxtest.Context(t, 30e9), "web", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "ops-team"})
	if err != nil {
		t.Fatal(err)
	}
	web := f.object(t, "Deployment", "web")
	unstructured.SetNestedField(web.Object, int64(2), "spec", "replicas")
	s := find(t, f.plan(t, plan.Options{}), "Deployment", "web")
	want := []plan.Conflict{{Manager: "ops-team", Fields: []string{"spec.replicas"}, Operation: plan.OperationUpdate}}
	if diff := cmp.Diff(want, s.Conflicts); diff != "" {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
	if !strings.Contains(s.Blocked, `manager "ops-team" owns spec.replicas`) {
		t.Errorf("blocked reason %q does not name the manager and field", s.Blocked)
	}
}

// TestReclaimTakesBackAnEditButNotAnotherAppliersField edits the replicas
// hello declares, as kubectl edit does (a patch: an update), and expects a
// plan made with Reclaim to update them back, naming the editor; a field
// another manager took by server-side apply stays a blocked conflict,
// Reclaim or not.
func TestReclaimTakesBackAnEditButNotAnotherAppliersField(t *testing.T) {
	f := example(t, "hello")
	unstructured.SetNestedField(f.object(t, "Deployment", "web").Object, int64(2), "spec", "replicas")
	f.applyAll(t)
	ctx := sandboxtest.Context(t, 30e9)
	deploys := f.sb.Dynamic.Resource(deployments).Namespace(f.ns)
	if _, err := deploys.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	if s := find(t, f.plan(t, plan.Options{}), "Deployment", "web"); s.Blocked == "" || s.Reclaim != nil {
		t.Fatalf("without Reclaim an edit must block the step: blocked %q, reclaim %v", s.Blocked, s.Reclaim)
	}
	s := find(t, f.plan(t, plan.Options{Reclaim: true}), "Deployment", "web")
	want := []plan.Conflict{{Manager: "kubectl-edit", Fields: []string{"spec.replicas"}, Operation: plan.OperationUpdate}}
	if diff := cmp.Diff(want, s.Reclaim); diff != "" || s.Blocked != "" || s.Action != plan.Update {
		t.Errorf("with Reclaim: action %s, blocked %q, reclaim (-want +got):\n%s", s.Action, s.Blocked, diff)
	}
	if got := changedPaths(s.Changes); !slices.Contains(got, "spec.replicas") {
		t.Errorf("the reclaiming step changes %v, want spec.replicas among them", got)
	}

	applied := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":4}}`)
	if _, err := deploys.Patch(ctx, "web", types.ApplyPatchType, applied, metav1.PatchOptions{FieldManager: "autoscaler", Force: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	s = find(t, f.plan(t, plan.Options{Reclaim: true}), "Deployment", "web")
	want = []plan.Conflict{{Manager: "autoscaler", Fields: []string{"spec.replicas"}, Operation: plan.OperationApply}}
	if diff := cmp.Diff(want, s.Conflicts); diff != "" || s.Blocked == "" || s.Reclaim != nil {
		t.Errorf("another applier's field: blocked %q, reclaim %v, conflicts (-want +got):\n%s", s.Blocked, s.Reclaim, diff)
	}
}

func changedPaths(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestPlanRefusesImmutableChangesUnlessReplaceIsAllowed changes the data of
// an immutable ConfigMap.
func TestPlanRefusesImmutableChangesUnlessReplaceIsAllowed(t *testing.T) {
	f := example(t, "hello")
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata":  map[string]any{"name": "frozen", "namespace": f.ns, "labels": map[string]any{"piceli.dev/release": "hello"}},
		"immutable": true, "data": map[string]any{"k": "v1"},
	}}
	f.apply(t, cm)
	changed := cm.DeepCopy()
	unstructured.SetNestedField(changed.Object, "v2", "data", "k")
	f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: changed})

	refused := find(t, f.plan(t, plan.Options{}), "ConfigMap", "frozen")
	if refused.Action != plan.Replace || !strings.Contains(refused.Blocked, "immutable field") || !strings.Contains(refused.Blocked, "only when replacement is allowed") {
		t.Errorf("immutable change: action %s, blocked %q; want a refused replace saying replacement must be allowed", refused.Action, refused.Blocked)
	}
	allowed := find(t, f.plan(t, plan.Options{AllowReplace: true}), "ConfigMap", "frozen")
	if allowed.Action != plan.Replace || allowed.Blocked != "" {
		t.Errorf("with AllowReplace: action %s, blocked %q; want an unblocked replace", allowed.Action, allowed.Blocked)
	}
}

// TestPlanAdoptsOnlyVisibly expects an existing object the release never
// labelled to be planned as an adoption, not a silent update.
func TestPlanAdoptsOnlyVisibly(t *testing.T) {
	f := example(t, "hello")
	svc := f.object(t, "Service", "web").DeepCopy()
	labels := svc.GetLabels()
	delete(labels, "piceli.dev/release")
	svc.SetLabels(labels)
	f.apply(t, svc)
	if s := find(t, f.plan(t, plan.Options{}), "Service", "web"); s.Action != plan.Adopt {
		t.Errorf("an unlabelled existing Service is planned as %s, want adopt", s.Action)
	}
}
