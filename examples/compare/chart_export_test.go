package compare_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/release"
)

// Acceptance 5 of issue 31: `piceli chart export` of examples/shop gives a
// chart whose `helm template` equals `piceli render` under the compare
// normalisation, which `helm lint` passes, whose schema refuses a
// misspelt values key, and in which setting one value changes exactly
// that field.
func TestChartExportOfShopRendersAsPiceli(t *testing.T) {
	helm, _ := tools(t)
	// The shop's images are taken from its build by digest: build it (12 s,
	// into its ignored .piceli-build).
	if _, err := artifact.Build(t.Context(), "../shop/build.toml", artifact.BuildOptions{}); err != nil {
		t.Fatalf("build the shop's images: %v", err)
	}
	r, err := release.Open("../shop/release.toml", release.Options{CacheDir: t.TempDir(), Env: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.Render(t.Context(), release.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chart")
	if _, err := r.ExportChart(t.Context(), dir, release.ChartOptions{}); err != nil {
		t.Fatalf("ExportChart: %v", err)
	}
	want := byName(t, "piceli", normalise(t, objs))
	got := byName(t, "helm", normalise(t, parseYAML(t, run(t, helm, "template", "shop", dir))))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helm template of the exported chart renders other objects than piceli render (-piceli +helm):\n%s", diff)
	}
	run(t, helm, "lint", "--strict", dir)

	out, err := exec.Command(helm, "template", "shop", dir, "--set", "replica.web=3").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "replica") {
		t.Errorf("helm template with a misspelt key (replica.web): %v, want the schema to refuse it\n%s", err, out)
	}

	changed := byName(t, "helm", normalise(t, parseYAML(t, run(t, helm, "template", "shop", dir, "--set", "replicas.web=5"))))
	web := want["Deployment/web"]
	if web == nil {
		t.Fatal("piceli render of the shop has no Deployment/web")
	}
	wantWeb := deepCopy(web)
	unstructured.SetNestedField(wantWeb, float64(5), "spec", "replicas")
	for key, o := range changed {
		w := want[key]
		if key == "Deployment/web" {
			w = wantWeb
		}
		if diff := cmp.Diff(w, o); diff != "" {
			t.Errorf("with replicas.web=5, %s differs from piceli render other than in that field (-want +got):\n%s", key, diff)
		}
	}
}

func deepCopy(o map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: o}).DeepCopy().Object
}
