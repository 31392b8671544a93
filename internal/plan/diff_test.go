package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func deployment(image string, replicas int64, status string) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "resourceVersion": status, "generation": int64(1)},
		"spec": map[string]any{
			"replicas": replicas,
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "web", "image": image, "args": []any{"-v"}},
				map[string]any{"name": "sidecar", "image": "log"},
			}}},
		},
		"status": map[string]any{"readyReplicas": status},
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name         string
		live, result map[string]any
		want         []Change
	}{
		{
			name:   "status and server metadata churn is no change",
			live:   deployment("nginx:1", 2, "1"),
			result: deployment("nginx:1", 2, "2"),
			want:   nil,
		},
		{
			name:   "one changed field inside a named list item is named by path",
			live:   deployment("nginx:1", 2, "1"),
			result: deployment("nginx:2", 2, "1"),
			want:   []Change{{Path: "spec.template.spec.containers[name=web].image", Kind: Changed, From: "nginx:1", To: "nginx:2"}},
		},
		{
			name:   "added and removed fields",
			live:   map[string]any{"kind": "ConfigMap", "data": map[string]any{"a": "1"}},
			result: map[string]any{"kind": "ConfigMap", "data": map[string]any{"b": "2"}},
			want:   []Change{{Path: "data.a", Kind: Removed, From: "1"}, {Path: "data.b", Kind: Added, To: "2"}},
		},
		{
			name:   "secret values are hidden",
			live:   map[string]any{"kind": "Secret", "data": map[string]any{"password": "b2xk"}},
			result: map[string]any{"kind": "Secret", "data": map[string]any{"password": "bmV3"}},
			want:   []Change{{Path: "data.password", Kind: Changed, Hidden: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Diff(tt.live, tt.result)); diff != "" {
				t.Errorf("Diff() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTouchedIgnoresFieldsThePlanDoesNotSet(t *testing.T) {
	desired := map[string]any{"spec": map[string]any{"replicas": int64(2)}}
	a := Touched(desired, deployment("nginx:1", 2, "1"))
	b := Touched(desired, deployment("nginx:9", 2, "7"))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("Touched() changed with fields the plan does not set (-a +b):\n%s", diff)
	}
	c := Touched(desired, deployment("nginx:1", 3, "1"))
	if cmp.Equal(a, c) {
		t.Errorf("Touched() did not change when a field the plan sets changed")
	}
}
