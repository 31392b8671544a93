package compare_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// publicChart is a chart of a widely used project, vendored under
// testdata/charts with its SOURCES, and the values the tests render it with.
type publicChart struct {
	dir    string // testdata/charts/<dir>, holding SOURCES and values-piceli.yaml
	chart  string // the chart's directory under dir
	digest string // the chart directory's digest (chart.Digest)
}

// publicCharts are the charts of docs/charts.md's "Public charts we test
// against".
var publicCharts = []publicChart{
	{dir: "cert-manager-v1.21.1", chart: "cert-manager", digest: "sha256:fcf79ffea5df165941af2174802d6c096b127e5c34b9ba889e8e1bac398f080f"},
	{dir: "metrics-server-3.13.1", chart: "metrics-server", digest: "sha256:0def5aa2acc533a7bf36dd017899db16537f96fbc3d35c8656ed228ab8cca6f8"},
}

// Acceptance 6 of issue 31: each public chart inside a Piceli release,
// beside the release's own object, renders exactly the objects helm
// template renders of it with the same values file. The one difference
// allowed is the label Piceli adds to every object of a release,
// piceli.dev/release, which must name the release (releaseLabel); nothing
// else is normalised: hook annotations, namespaces, Secrets and defaults
// are compared as rendered. How hooks become waves is the cluster test's
// (TestPublicChartsApplyOnTheSandbox in release).
func TestPublicChartsInACompositionRenderAsHelmTemplate(t *testing.T) {
	helm, _ := tools(t)
	for _, c := range publicCharts {
		t.Run(c.chart, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join("../../testdata/charts", c.dir))
			if err != nil {
				t.Fatal(err)
			}
			chartDir, values := filepath.Join(dir, c.chart), filepath.Join(dir, "values-piceli.yaml")
			want := byName(t, "helm", viaJSONAll(t, parseYAML(t, run(t, helm, "template", c.chart, chartDir,
				"--namespace", c.chart, "--kube-version", "1.36.0", "--values", values))))
			got := byName(t, "piceli", releaseLabel(t, c.chart, viaJSONAll(t, renderRelease(t, publicRelease(t, c, chartDir, values)))))
			if _, ok := got["ConfigMap/own"]; !ok {
				t.Errorf("the release's own object ConfigMap/own is missing beside the chart's")
			}
			delete(got, "ConfigMap/own")
			if len(want) == 0 {
				t.Fatalf("helm template rendered no objects of %s", c.chart)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s in a release renders other objects than helm template (-helm +piceli):\n%s", c.chart, diff)
			}
			t.Logf("%s: %d objects alike", c.chart, len(want))
		})
	}
}

// publicRelease writes a release of c, beside one object of its own, into
// the chart's namespace, and returns its release.toml.
func publicRelease(t *testing.T, c publicChart, chartDir, values string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	own := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\ndata: {chart: " + c.dir + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "manifests/own.yaml"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`[target]
kubeconfig = "no-such.kubeconfig"
context = "none"
namespace = %q

[release]
name = %q
composition = "manifests"

[[charts]]
path = %q
digest = %q
values_file = %q
`, c.chart, c.chart, chartDir, c.digest, values)
	path := filepath.Join(dir, "release.toml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// releaseLabel removes from each object the label piceli.dev/release,
// failing the test when an object lacks it or it names another release.
func releaseLabel(t *testing.T, release string, objs []map[string]any) []map[string]any {
	t.Helper()
	for _, o := range objs {
		u := unstructured.Unstructured{Object: o}
		labels := u.GetLabels()
		if labels[object.ReleaseLabel] != release {
			t.Errorf("%s/%s has label %s=%q, want %q", u.GetKind(), u.GetName(), object.ReleaseLabel, labels[object.ReleaseLabel], release)
		}
		delete(labels, object.ReleaseLabel)
		if len(labels) == 0 {
			unstructured.RemoveNestedField(o, "metadata", "labels")
		} else {
			u.SetLabels(labels)
		}
	}
	return objs
}
