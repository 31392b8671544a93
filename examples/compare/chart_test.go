package compare_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/compose/kustomize"
	"github.com/pynenc/piceli/release"
)

// Acceptance 1 of issue 31: the shop chart inside a Piceli release renders
// the objects helm template renders of it, under the compare normalisation.
func TestChartInACompositionRendersAsHelmTemplate(t *testing.T) {
	helm, _ := tools(t)
	want := byName(t, "helm", normalise(t, parseYAML(t, run(t, helm, "template", "shop", "helm/shop",
		"--namespace", "compare", "--kube-version", "1.36.0", "--set", "logLevel=info"))))
	got := byName(t, "piceli", normalise(t, renderRelease(t, "chart/release.toml")))
	if _, ok := got["ConfigMap/shop-chart-notes"]; !ok {
		t.Errorf("the release's own object ConfigMap/shop-chart-notes is missing beside the chart's")
	}
	delete(got, "ConfigMap/shop-chart-notes")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the chart in a release renders other objects than helm template (-helm +piceli):\n%s", diff)
	}
}

func renderRelease(t *testing.T, spec string) []*unstructured.Unstructured {
	t.Helper()
	r, err := release.Open(spec, release.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.Render(t.Context(), release.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// Acceptance 3 of issue 31: the compare overlay rendered in process gives
// exactly what the pinned kustomize build gives.
func TestKustomizationRendersAsKustomizeBuild(t *testing.T) {
	_, kustomizeBin := tools(t)
	want := parseYAML(t, kustomizeBuild(t, kustomizeBin, "prod"))
	overlay := kustomizeCopy(t, "prod")
	objs, err := kustomize.Render(kustomize.Source{Path: overlay, Root: filepath.Dir(filepath.Dir(overlay))})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		got[i] = o.Object
	}
	if diff := cmp.Diff(viaJSONAll(t, want), viaJSONAll(t, got)); diff != "" {
		t.Errorf("the kustomization renders other objects than kustomize build (-kustomize +piceli):\n%s", diff)
	}
}

// viaJSONAll gives every number of every object one type.
func viaJSONAll(t *testing.T, objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = viaJSON(t, o.Object)
	}
	return out
}
