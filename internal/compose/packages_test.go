package compose

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/refusal"
	pubwire "github.com/pynenc/piceli/wire"
)

// A Go composition's chart is rendered after it, its path resolved against
// release.toml's directory and its values applied.
func TestWithPackagesRendersAGoCompositionsChart(t *testing.T) {
	dir, _ := filepath.Abs("chart/testdata")
	d, err := chart.Digest(filepath.Join(dir, "stack"))
	if err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Dir: dir, Release: spec.Release{Name: "shop"}, Target: spec.Target{Namespace: "apps"}}
	res := &Result{Charts: []pubwire.ChartInfo{{Path: "stack", Digest: d, Values: map[string]any{"size": 7}}}}
	if err := withPackages(t.Context(), s, res, chart.Options{}); err != nil {
		t.Fatalf("withPackages() error = %v", err)
	}
	found := false
	for _, o := range res.Objects {
		if o.Object.GetName() == "shop-widget" {
			size, _, _ := unstructuredInt(o.Object.Object, "spec", "size")
			found = size == 7
		}
	}
	if !found {
		t.Errorf("withPackages() objects = %d, want Widget/shop-widget with spec.size 7", len(res.Objects))
	}
	res = &Result{Charts: []pubwire.ChartInfo{{Path: "stack", Digest: "sha256:" + zeros}}}
	if err := withPackages(t.Context(), s, res, chart.Options{}); !refusal.Is(err) {
		t.Errorf("withPackages(wrong digest) error = %v, want a refusal", err)
	}
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	return unstructured.NestedInt64(obj, fields...)
}
