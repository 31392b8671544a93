package plan

import (
	"fmt"
	"testing"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// bigPlan is a no-op plan of n ConfigMaps, as a release of the benchmark's
// synthetic ConfigMaps would store it.
func bigPlan(n int) *Plan {
	p := &Plan{
		Schema:  Schema,
		Release: Release{Name: "bench", Owner: "bench", FieldManager: "piceli-bench"},
		Target:  Target{Server: "https://127.0.0.1:6443", Context: "kwok-piceli", Namespace: "bench", ClusterUID: "uid-1"},
	}
	var nodes []int
	for i := range n {
		m := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i), "namespace": "bench", "labels": map[string]any{"bench": "synthetic", "piceli.dev/release": "bench"}},
			"data":     map[string]any{"index": fmt.Sprint(i), "mode": "benchmark", "payload": fmt.Sprintf("value-%05d-of-a-synthetic-release", i)}}
		p.Steps = append(p.Steps, Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "bench", Name: fmt.Sprintf("cm-%05d", i)}, APIVersion: "v1", Resource: "configmaps", Stage: graph.StageConfig,
			Action: NoOp, Observed: Observed{UID: fmt.Sprintf("uid-%d", i), ResourceVersion: fmt.Sprint(1000 + i), Fields: "hmac-sha256:bb"}, Manifest: m,
			Desired: Digester{Key: testKey}.Of(m)})
		nodes = append(nodes, i)
	}
	p.Waves = []graph.Wave{{Stage: graph.StageConfig, Nodes: nodes}}
	return p
}

func BenchmarkLoad1000(b *testing.B) {
	dir := b.TempDir()
	if err := StoreKey(dir, testKey); err != nil {
		b.Fatal(err)
	}
	hash, err := Save(dir, bigPlan(1000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Load(dir, hash); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash1000(b *testing.B) {
	p := bigPlan(1000)
	for b.Loop() {
		if _, err := ComputeHash(p); err != nil {
			b.Fatal(err)
		}
	}
}
