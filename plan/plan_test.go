package plan_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

// shop is a small plan: a ConfigMap to create and a Deployment whose image
// changes, in two waves.
func shop() *plan.Plan {
	cfg := object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "cfg"}
	web := object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}
	return &plan.Plan{
		Schema:  plan.Schema,
		Hash:    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Release: plan.Release{Name: "shop"},
		Target:  plan.Target{Namespace: "shop"},
		Steps: []plan.Step{
			{Ref: cfg, Stage: plan.StageConfig, Action: plan.Create},
			{Ref: web, Stage: plan.StageWorkloads, Action: plan.Update, Changes: []plan.Change{
				{Path: "spec.template.spec.containers[0].image", Kind: plan.Changed, From: "web:1", To: "web:2"},
			}},
		},
		Waves: []plan.Wave{{Stage: plan.StageConfig, Nodes: []int{0}}, {Stage: plan.StageWorkloads, Nodes: []int{1}}},
	}
}

func TestPlanReadsForPeople(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func(p *plan.Plan) string
		want string
	}{
		{name: "the summary counts steps per action", got: (*plan.Plan).Summary, want: "1 to create, 1 to update"},
		{name: "the short hash is the first 12 hex digits", got: (*plan.Plan).ShortHash, want: "0123456789ab"},
		{name: "the text lists each wave's steps and changed fields", got: func(p *plan.Plan) string {
			var b bytes.Buffer
			p.Write(&b, plan.WriteOptions{})
			return b.String()
		}, want: `release shop in namespace shop: 1 to create, 1 to update

wave 1: config
  +   ConfigMap/shop/cfg (create)

wave 2: workloads
  ~   Deployment/shop/web (update)
      spec.template.spec.containers[0].image: "web:1" → "web:2"
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got(shop())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestChanged(t *testing.T) {
	p := shop()
	if !p.Changed() {
		t.Errorf("Changed() = false for a plan with a create and an update, want true")
	}
	for i := range p.Steps {
		p.Steps[i].Action = plan.NoOp
	}
	if p.Changed() {
		t.Errorf("Changed() = true for a plan of no-ops, want false")
	}
}
