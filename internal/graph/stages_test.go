package graph

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWaves(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		want  []Wave
	}{
		{
			name: "kinds follow stage order whatever the input order",
			nodes: []Node{
				{Name: "Deployment/web", Stage: StageWorkloads},
				{Name: "Service/web", Stage: StageServices},
				{Name: "Namespace/shop", Stage: StageNamespaces},
				{Name: "ConfigMap/cfg", Stage: StageConfig},
				{Name: "Deployment/api", Stage: StageWorkloads},
			},
			want: []Wave{
				{Stage: StageNamespaces, Nodes: []int{2}},
				{Stage: StageConfig, Nodes: []int{3}},
				{Stage: StageServices, Nodes: []int{1}},
				{Stage: StageWorkloads, Nodes: []int{0, 4}},
			},
		},
		{
			name: "a dependency inside a stage splits it into waves",
			nodes: []Node{
				{Name: "Deployment/api", Stage: StageWorkloads, DependsOn: []int{1}},
				{Name: "StatefulSet/db", Stage: StageWorkloads},
				{Name: "Deployment/worker", Stage: StageWorkloads, DependsOn: []int{1}},
			},
			want: []Wave{
				{Stage: StageWorkloads, Nodes: []int{1}},
				{Stage: StageWorkloads, Nodes: []int{0, 2}},
			},
		},
		{
			name: "a dependency on a later stage moves the dependent after it",
			nodes: []Node{
				{Name: "ConfigMap/late", Stage: StageConfig, DependsOn: []int{1}},
				{Name: "Deployment/web", Stage: StageWorkloads},
			},
			want: []Wave{
				{Stage: StageWorkloads, Nodes: []int{1}},
				{Stage: StageConfig, Nodes: []int{0}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Waves(tt.nodes)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Waves() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWavesNamesTheCycle(t *testing.T) {
	nodes := []Node{
		{Name: "Deployment/a", Stage: StageWorkloads, DependsOn: []int{1}},
		{Name: "Deployment/b", Stage: StageWorkloads, DependsOn: []int{2}},
		{Name: "Deployment/c", Stage: StageWorkloads, DependsOn: []int{1}},
	}
	_, err := Waves(nodes)
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("Waves() error = %v, want a *CycleError", err)
	}
	want := "dependency cycle: Deployment/b -> Deployment/c -> Deployment/b"
	if err.Error() != want {
		t.Errorf("Waves() error = %q, want %q", err, want)
	}
}
