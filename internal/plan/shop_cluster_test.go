package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/plan"
)

// TestPlanShopLifecycle plans the shop example into an empty namespace
// (everything created, in stage order), applies it, plans again (nothing
// changes) and changes one field (exactly that field shows).
func TestPlanShopLifecycle(t *testing.T) {
	f := example(t, "shop")
	first := f.plan(t, plan.Options{})
	if c := first.Counts(); c[plan.Create] != len(first.Steps) || len(first.Steps) != len(f.input.Objects) {
		t.Fatalf("first plan counts %v over %d steps, want all %d objects created", c, len(first.Steps), len(f.input.Objects))
	}
	assertStageOrder(t, first)

	f.applyAll(t)
	second := f.plan(t, plan.Options{})
	for _, s := range second.Steps {
		if s.Action != plan.NoOp {
			t.Errorf("after apply, %s is %s with changes %v, want no-op", s.Ref, s.Action, s.Changes)
		}
	}

	web := f.object(t, "Deployment", "web")
	if err := unstructured.SetNestedField(web.Object, int64(4), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	third := f.plan(t, plan.Options{})
	var changed []plan.Step
	for _, s := range third.Steps {
		if s.Action != plan.NoOp {
			changed = append(changed, s)
		}
	}
	if len(changed) != 1 || changed[0].Ref.Name != "web" || changed[0].Action != plan.Update {
		t.Fatalf("after changing web's replicas, changed steps = %v, want only Deployment web updated", changed)
	}
	want := []plan.Change{{Path: "spec.replicas", Kind: plan.Changed, From: int64(2), To: int64(4)}}
	if diff := cmp.Diff(want, changed[0].Changes); diff != "" {
		t.Errorf("web changes (-want +got):\n%s", diff)
	}
}

func assertStageOrder(t *testing.T, p *plan.Plan) {
	t.Helper()
	last := -1
	for w, wv := range p.Waves {
		for _, i := range wv.Nodes {
			if r := p.Steps[i].Stage.Rank(); r < last {
				t.Errorf("wave %d holds %s of stage %s after a later stage", w, p.Steps[i].Ref, p.Steps[i].Stage)
			}
		}
		last = wv.Stage.Rank()
	}
	if p.Waves[0].Stage == graph.StagePolicies {
		t.Errorf("the first wave is policies")
	}
}
