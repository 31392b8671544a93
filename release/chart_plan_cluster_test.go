package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/plan"
)

// repoPath is a path of the repository, found from this file (the
// package's examples change the working directory).
func repoPath(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", rel)
}

// writeChartRelease writes, in dir, a release of the chart at chartPath
// with the given [charts.values] (TOML inline table) into namespace ns.
func writeChartRelease(t *testing.T, dir string, sb *sandboxtest.Sandbox, ns, chartPath, values string) string {
	t.Helper()
	d, err := chart.Digest(chartPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "manifests/own.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\n")
	spec := filepath.Join(dir, "release.toml")
	write(t, spec, fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"shop\"\ncomposition = \"manifests/\"\nready_timeout = \"2m\"\n\n[[charts]]\npath = %q\ndigest = %q\nvalues = %s\n",
		sb.Kubeconfig, sb.Context, ns, chartPath, d, values))
	return spec
}

func planRelease(t *testing.T, ctx context.Context, spec string) (*Release, *plan.Plan) {
	t.Helper()
	r, err := Open(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// changedSteps are the steps of p that change something.
func changedSteps(p *plan.Plan) []plan.Step {
	var out []plan.Step
	for _, s := range p.Steps {
		if s.Action != plan.NoOp {
			out = append(out, s)
		}
	}
	return out
}

// Acceptance 1 of issue 31, on the sandbox: the compare example's chart
// (its db-credentials password drawn by randAlphaNum) inside a release is
// planned, applied by hash, planned again as a no-op that keeps the
// password, and changing one chart value gives a plan with exactly that
// field change, applied by hash.
func TestCompareChartAppliesByHashReplansAsNoOpAndChangesOneField(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := sandboxtest.Context(t, 5*time.Minute)
	dir := t.TempDir()
	shop := repoPath("examples/compare/helm/shop")
	spec := writeChartRelease(t, dir, sb, ns, shop, `{ logLevel = "info" }`)

	r, first := planRelease(t, ctx, spec)
	if c := first.Counts(); c[plan.Create] != len(first.Steps) {
		t.Fatalf("first plan counts %v, want all %d steps created", c, len(first.Steps))
	}
	version, err := sb.Clientset.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if first.Capabilities == nil || first.Capabilities.KubeVersion != version.GitVersion {
		t.Errorf("plan capabilities = %+v, want the sandbox's version %s", first.Capabilities, version.GitVersion)
	}
	if _, err := r.Apply(ctx, first.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	password := livePassword(t, ctx, sb, ns)
	if len(password) != 32 {
		t.Fatalf("live db-credentials password has %d characters, want randAlphaNum's 32", len(password))
	}

	r, second := planRelease(t, ctx, spec)
	if ch := changedSteps(second); len(ch) != 0 {
		t.Errorf("planning the same inputs again changes %d steps, want none: %v", len(ch), ch)
	}
	if _, err := r.Apply(ctx, second.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if livePassword(t, ctx, sb, ns) != password {
		t.Errorf("applying the unchanged release rotated the db-credentials password")
	}

	writeChartRelease(t, dir, sb, ns, shop, `{ logLevel = "info", web = { replicas = 3 } }`)
	r, third := planRelease(t, ctx, spec)
	ch := changedSteps(third)
	if len(ch) != 1 || ch[0].Ref.Kind != "Deployment" || ch[0].Ref.Name != "web" || ch[0].Action != plan.Update {
		t.Fatalf("after web.replicas = 3, changed steps = %v, want only Deployment web updated", ch)
	}
	want := []plan.Change{{Path: "spec.replicas", Kind: plan.Changed, From: int64(2), To: int64(3)}}
	if diff := cmp.Diff(want, ch[0].Changes); diff != "" {
		t.Errorf("Deployment web changes (-want +got):\n%s", diff)
	}
	if _, err := r.Apply(ctx, third.Hash, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	web, err := sb.Clientset.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if web.Spec.Replicas == nil || *web.Spec.Replicas != 3 {
		t.Errorf("live Deployment web replicas = %v, want 3", web.Spec.Replicas)
	}
	if livePassword(t, ctx, sb, ns) != password {
		t.Errorf("changing web's replicas rotated the db-credentials password")
	}
}

func livePassword(t *testing.T, ctx context.Context, sb *sandboxtest.Sandbox, ns string) string {
	t.Helper()
	sec, err := sb.Clientset.CoreV1().Secrets(ns).Get(ctx, "db-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(sec.Data["password"])
}

// A chart whose output depends on .Capabilities renders against the
// declared defaults offline (render) and against the sandbox's discovery
// when planned: its Kubernetes version and an API group only the sandbox
// serves.
func TestChartSeesTheClusterWhenPlannedAndTheDefaultsWhenRendered(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := sandboxtest.Context(t, 2*time.Minute)
	group := "x" + strings.ReplaceAll(ns, "-", "") + ".piceli.dev"
	servePlural(t, ctx, sb, group)
	spec := writeChartRelease(t, t.TempDir(), sb, ns, repoPath("internal/compose/chart/testdata/caps"), fmt.Sprintf("{ probe = %q }", group+"/v1"))
	version, err := sb.Clientset.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}

	r, err := Open(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := r.Render(ctx, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var offline map[string]string
	for _, u := range rendered {
		if u.GetName() == "shop-caps" {
			offline, _, _ = unstructured.NestedStringMap(u.Object, "data")
		}
	}
	_, p := planRelease(t, ctx, spec)
	var planned map[string]string
	for _, s := range p.Steps {
		if s.Ref.Name == "shop-caps" {
			planned, _, _ = unstructured.NestedStringMap(s.Manifest, "data")
		}
	}
	if want := map[string]string{"kube": chart.DefaultKubeVersion, "probe": "absent", "minimum": "met"}; !cmp.Equal(want, offline) {
		t.Errorf("rendered offline, data = %v, want %v", offline, want)
	}
	if want := map[string]string{"kube": version.GitVersion, "probe": "served", "minimum": "met"}; !cmp.Equal(want, planned) {
		t.Errorf("planned against the sandbox, data = %v, want %v", planned, want)
	}
	if p.Capabilities == nil || p.Capabilities.KubeVersion != version.GitVersion {
		t.Errorf("plan capabilities = %+v, want Kubernetes %s", p.Capabilities, version.GitVersion)
	}
}

// servePlural makes the sandbox serve group/v1 through a CRD, removed
// when the test ends, and waits until discovery lists it.
func servePlural(t *testing.T, ctx context.Context, sb *sandboxtest.Sandbox, group string) {
	t.Helper()
	crds := sb.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "probes." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "probes", "singular": "probe", "kind": "Probe"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}}},
		},
	}}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { crds.Delete(context.Background(), "probes."+group, metav1.DeleteOptions{}) })
	for {
		if _, err := sb.Clientset.Discovery().ServerResourcesForGroupVersion(group + "/v1"); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the sandbox does not serve %s/v1: %v", group, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
