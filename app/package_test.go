package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChartAndKustomizationReachTheDocument(t *testing.T) {
	type web struct {
		Replicas int `json:"replicas"`
	}
	a := New("shop")
	a.Chart("charts/shop", "sha256:"+zeros64, map[string]any{"web": web{Replicas: 3}}).Named("store")
	a.Chart("charts/typed.tgz", "sha256:"+zeros64, struct {
		LogLevel string `json:"logLevel"`
	}{"debug"})
	a.Kustomization("k/overlays/prod").Root("k")
	c, err := a.Composition(nil)
	if err != nil {
		t.Fatalf("Composition() error = %v", err)
	}
	doc := c.Document()
	wantCharts := []ChartInfo{
		{Path: "charts/shop", Digest: "sha256:" + zeros64, Name: "store", Values: map[string]any{"web": web{Replicas: 3}}},
		{Path: "charts/typed.tgz", Digest: "sha256:" + zeros64, Values: map[string]any{"logLevel": "debug"}},
	}
	if diff := cmp.Diff(wantCharts, doc.Charts); diff != "" {
		t.Errorf("Document().Charts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]KustomizationInfo{{Path: "k/overlays/prod", Root: "k"}}, doc.Kustomizations); diff != "" {
		t.Errorf("Document().Kustomizations (-want +got):\n%s", diff)
	}
}

func TestChartRefusesValuesThatAreNotAnObject(t *testing.T) {
	a := New("shop")
	a.Chart("c", "sha256:"+zeros64, []int{1})
	if _, err := a.Composition(nil); err == nil {
		t.Error("Composition() error = nil, want values that encode to a list refused")
	}
}

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"
