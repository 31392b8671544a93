package plan_test

import (
	"os"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

// A plan printed as a pull-request review comment, with the command that
// approves it.
func ExamplePlan_WriteMarkdown() {
	p := &plan.Plan{
		Schema:  plan.Schema,
		Hash:    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Release: plan.Release{Name: "shop"},
		Target:  plan.Target{Namespace: "shop", Server: "https://127.0.0.1:6443", Context: "dev"},
		Steps: []plan.Step{{
			Ref:    object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"},
			Stage:  plan.StageWorkloads,
			Action: plan.Update,
			Changes: []plan.Change{
				{Path: "spec.template.spec.containers[name=web].image", Kind: plan.Changed, From: "web:1", To: "web:2"},
			},
		}},
		Waves: []plan.Wave{{Stage: plan.StageWorkloads, Nodes: []int{0}}},
	}
	p.WriteMarkdown(os.Stdout, plan.MarkdownOptions{Next: "piceli release apply --spec release.toml --approve " + p.ShortHash()})
	// Output:
	// ### Piceli plan for release `shop`
	//
	// Namespace `shop` on `https://127.0.0.1:6443` (context `dev`): **1 to update**.
	//
	// | wave | stage | update |
	// | ---: | --- | ---: |
	// | 1 | `workloads` | 1 |
	// | | **total** | 1 |
	//
	// #### Wave 1: `workloads`
	//
	// | action | object | changed fields |
	// | --- | --- | --- |
	// | update | `Deployment/shop/web` | `spec.template.spec.containers[name=web].image`: `"web:1"` → `"web:2"` |
	//
	// #### Approve
	//
	// Plan `sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`. To apply exactly this plan:
	//
	// ```sh
	// piceli release apply --spec release.toml --approve 0123456789ab
	// ```
}
