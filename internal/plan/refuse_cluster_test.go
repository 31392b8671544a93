package plan_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// TestPlanRefusesBadInput expects unknown kinds, wrong scopes, dependency
// cycles and objects the server rejects to fail planning, naming them.
func TestPlanRefusesBadInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *fixture)
		is     func(error) bool
		want   string
	}{
		{
			name:   "an unknown kind",
			change: func(f *fixture) { f.object(t, "Service", "web").SetKind("Servise") },
			is:     func(err error) bool { return errors.Is(err, kube.ErrUnresolved) },
			want:   `no kind "Servise"`,
		},
		{
			name:   "a namespaced kind without a namespace",
			change: func(f *fixture) { f.object(t, "Service", "web").SetNamespace("") },
			is:     func(err error) bool { return errors.Is(err, kube.ErrUnresolved) },
			want:   "Service/web",
		},
		{
			name: "a dependency cycle",
			change: func(f *fixture) {
				for i := range f.input.Objects {
					if f.input.Objects[i].Object.GetKind() == "Deployment" {
						f.input.Objects[i].DependsOn = []string{"web"}
					}
				}
			},
			is:   func(err error) bool { var c *graph.CycleError; return errors.As(err, &c) },
			want: "dependency cycle: Deployment/",
		},
		{
			name:   "an object the server rejects",
			change: func(f *fixture) { f.object(t, "Service", "web").Object["spec"].(map[string]any)["type"] = "Sideways" },
			is:     func(err error) bool { return errors.Is(err, plan.ErrRefused) },
			want:   "Service/",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := example(t, "hello")
			tt.change(f)
			_, err := plan.Make(sandboxtest.Context(t, 60e9), f.client, f.input, plan.Options{Key: testKey})
			if err == nil || !tt.is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("plan.Make() error = %v, want a classified error containing %q", err, tt.want)
			}
		})
	}
}
