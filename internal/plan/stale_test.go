package plan

import (
	"strings"
	"testing"
)

func TestStale(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Plan)
		want   string // "" means not stale
	}{
		{"the same plan is not stale", func(*Plan) {}, ""},
		{"status churn (a new resourceVersion) is not stale", func(p *Plan) { p.Steps[1].Observed.ResourceVersion = "99" }, ""},
		{"a spec change elsewhere (new generation) is not stale", func(p *Plan) { p.Steps[1].Observed.Generation = 9 }, ""},
		{"another cluster is stale", func(p *Plan) { p.Target.ClusterUID = "other" }, "the target differs"},
		{"another rendering is stale", func(p *Plan) { p.Steps[0].Desired = "hmac-sha256:zz" }, "ConfigMap/shop/cfg: the composition now renders it differently"},
		{"an object created where the plan saw absence is stale", func(p *Plan) {
			p.Steps[0].Observed = Observed{UID: "new"}
			p.Steps[0].Action = Update
		}, "ConfigMap/shop/cfg: planned absent, now present (uid new)"},
		{"a recreated object is stale", func(p *Plan) { p.Steps[1].Observed.UID = "u2" }, "Deployment/shop/web: recreated since the plan"},
		{"a touched field changed is stale", func(p *Plan) { p.Steps[1].Observed.Fields = "hmac-sha256:other" }, "Deployment/shop/web: a field the plan sets was changed"},
		{"charts rendered against another Kubernetes version is stale", func(p *Plan) { p.Capabilities = &Capabilities{KubeVersion: "v1.36.3"} },
			"the charts were rendered against no cluster, now Kubernetes v1.36.3"},
		{"a new object in the plan is stale", func(p *Plan) { p.Steps = append(p.Steps, Step{Ref: p.Steps[0].Ref}); p.Steps[2].Ref.Name = "extra" }, "ConfigMap/shop/extra: now part of the plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := samplePlan()
			tt.change(fresh)
			got := strings.Join(Stale(samplePlan(), fresh), "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Stale() = %q, want %q", got, tt.want)
			}
		})
	}
}
