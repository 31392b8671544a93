package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/progress"
)

// chartRelease writes a release of the chart at dir (copied, so a test can
// edit it) into a fresh namespace and returns the spec and the chart copy.
func chartRelease(t *testing.T, sb *sandboxtest.Sandbox, ns string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	chartDir := filepath.Join(dir, "stack")
	if err := os.CopyFS(chartDir, os.DirFS(stackChart())); err != nil {
		t.Fatal(err)
	}
	// A cluster-wide CRD per test run, so parallel runs never share one.
	group := "t" + strings.ReplaceAll(ns, "-", "") + ".piceli.dev"
	rewrite(t, filepath.Join(chartDir, "crds/widget.yaml"), "test.piceli.dev", group)
	rewrite(t, filepath.Join(chartDir, "templates/widget.yaml"), "test.piceli.dev", group)
	if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "manifests/own.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\n")
	writeChartSpec(t, dir, sb, ns)
	return filepath.Join(dir, "release.toml"), chartDir
}

// stackChart is the test chart's directory, found from this file (the
// package's examples change the working directory).
func stackChart() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "../internal/compose/chart/testdata/stack")
}

func writeChartSpec(t *testing.T, dir string, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	d, err := chart.Digest(filepath.Join(dir, "stack"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "release.toml"), fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"demo\"\ncomposition = \"manifests/\"\nready_timeout = \"1m\"\n\n[[charts]]\npath = \"stack\"\ndigest = %q\n", sb.Kubeconfig, sb.Context, ns, d))
}

func rewrite(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, strings.ReplaceAll(string(data), old, new))
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Acceptance 2 of issue 31: a chart with a CRD, a custom resource of it, a
// subchart and pre/post hooks applies in order (CRD, pre hooks by weight,
// the chart's objects, post hook), and a new chart version that changes
// the CRD's schema upgrades the live CRD.
func TestChartAppliesInHookOrderAndUpgradesItsCRD(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	spec, chartDir := chartRelease(t, sb, ns)
	ctx := sandboxtest.Context(t, 3*time.Minute)
	r, err := Open(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wave, events := recordWaves()
	if _, err := r.Apply(ctx, p.Hash, RunOptions{Events: events}); err != nil {
		t.Fatal(err)
	}
	group := "t" + strings.ReplaceAll(ns, "-", "") + ".piceli.dev"
	crds := sb.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	t.Cleanup(func() { crds.Delete(context.Background(), "widgets."+group, metav1.DeleteOptions{}) })
	order := []string{
		"CustomResourceDefinition/widgets." + group,
		"ConfigMap/" + ns + "/demo-pre-early",
		"ConfigMap/" + ns + "/demo-pre-late",
		"Widget/" + ns + "/demo-widget",
		"ConfigMap/" + ns + "/demo-post",
	}
	for i := 1; i < len(order); i++ {
		if wave[order[i-1]] >= wave[order[i]] {
			t.Errorf("%s was applied in wave %d, not before %s in wave %d (waves: %v)", order[i-1], wave[order[i-1]], order[i], wave[order[i]], wave)
		}
	}
	for _, ref := range []string{"ServiceAccount/" + ns + "/demo-sub", "ConfigMap/" + ns + "/demo-config"} {
		if w, ok := wave[ref]; !ok || w <= wave[order[2]] || w >= wave[order[4]] {
			t.Errorf("%s applied in wave %d (%v), want between the pre and post hooks", ref, w, ok)
		}
	}
	if _, ok := wave["Pod/"+ns+"/demo-test"]; ok {
		t.Errorf("the test hook Pod/%s/demo-test was applied", ns)
	}

	// Version 2 of the chart adds a field to the CRD's schema.
	rewrite(t, filepath.Join(chartDir, "crds/widget.yaml"), "size: {type: integer}", "size: {type: integer}\n                color: {type: string}")
	rewrite(t, filepath.Join(chartDir, "Chart.yaml"), "version: 1.0.0", "version: 2.0.0")
	writeChartSpec(t, filepath.Dir(chartDir), sb, ns)
	r, err = Open(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err = r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(ctx, p.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	crd, err := crds.Get(ctx, "widgets."+group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	props, _, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties")
	if diff := cmp.Diff(map[string]any{"size": map[string]any{"type": "integer"}, "color": map[string]any{"type": "string"}}, props); diff != "" {
		t.Errorf("live CRD widgets.%s spec properties after the upgrade (-want +got):\n%s", group, diff)
	}
}

// recordWaves returns the wave each step finished in, by object, and the
// event handler of an apply that fills it. Read it once Apply returned.
func recordWaves() (map[string]int, func(progress.Event)) {
	var mu sync.Mutex
	wave := map[string]int{}
	return wave, func(e progress.Event) {
		if e.Kind == progress.StepFinished {
			mu.Lock()
			wave[e.Ref] = e.Wave
			mu.Unlock()
		}
	}
}
