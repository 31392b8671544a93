package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/bench/synth"
	"github.com/pynenc/piceli/internal/object"
)

// TestTheChartRendersTheSameObjects loads the generated chart with Helm's
// own loader, renders it with Helm's engine and decodes the result: the
// objects must be the synthetic ones with the release label, and no
// namespace of their own.
func TestTheChartRendersTheSameObjects(t *testing.T) {
	objs, err := synth.Objects(synth.ConfigMaps, 25)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chart")
	if err := writeChart(dir, objs); err != nil {
		t.Fatal(err)
	}
	ch, err := loader.LoadDir(dir)
	if err != nil {
		t.Fatalf("helm cannot load the chart: %v", err)
	}
	if ch.Metadata.Name != releaseName {
		t.Errorf("chart name %q, want %q", ch.Metadata.Name, releaseName)
	}
	vals, err := commonutil.ToRenderValues(ch, map[string]any{}, common.ReleaseOptions{Name: releaseName, Namespace: "ns-x"}, common.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatalf("helm cannot render the chart: %v", err)
	}
	if len(out) != 1 {
		t.Fatalf("chart renders %d files, want 1", len(out))
	}
	var text string
	for _, v := range out {
		text = v
	}
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readManifests(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(objs) {
		t.Fatalf("chart renders %d objects, want %d", len(got), len(objs))
	}
	for i, o := range objs {
		want := o.DeepCopy()
		labels := want.GetLabels()
		labels[object.ReleaseLabel] = releaseName
		want.SetLabels(labels)
		if d := cmp.Diff(want.Object, got[i].Object); d != "" {
			t.Errorf("object %d (-want +got):\n%s", i, d)
		}
	}
}

func TestAChartWithATemplateActionIsRefused(t *testing.T) {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "{{ .Values.x }}"}}}
	o.SetName("cm")
	err := writeChart(t.TempDir(), []*unstructured.Unstructured{o})
	if err == nil || !strings.Contains(err.Error(), "template action") {
		t.Fatalf("writeChart() of a value holding {{ = %v, want a refusal", err)
	}
}

func TestReadManifestsSkipsEmptyDocumentsAndNamesABadOne(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: a\n"), 0o644)
	objs, err := readManifests(good)
	if err != nil || len(objs) != 2 || objs[1].GetName() != "b" {
		t.Fatalf("readManifests() = %d objects, %v; want the Namespace and the ConfigMap", len(objs), err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: Namespace\n---\n: [\n"), 0o644)
	if _, err := readManifests(bad); err == nil || !strings.Contains(err.Error(), "document 2") {
		t.Fatalf("readManifests() of a broken second document = %v, want an error naming document 2", err)
	}
}

func TestPeerTableShowsTheFourToolsAndPiceliRatios(t *testing.T) {
	cfg := smallConfig(t)
	r := newResults(cfg)
	walls := map[string]time.Duration{toolPiceli: time.Second, toolFloor: 800 * time.Millisecond, toolKubectl: 4 * time.Second, toolHelm: 10 * time.Second}
	for _, k := range r.expected() {
		for range cfg.Runs {
			r.add(k.Row, k.Op, k.Tool, sample{Wall: walls[k.Tool], CPU: walls[k.Tool] / 2, RSS: 50e6, Requests: float64(k.Row.N)})
		}
	}
	if m := r.missing(); len(m) != 0 {
		t.Fatalf("missing() = %v", m)
	}
	table := r.peerTable()
	want := "| configmaps 100 yaml | fresh apply | 1.00 s (1.00–1.00) | 0.80 s (0.80–0.80) apply | 4.00 s (4.00–4.00) `apply --server-side` | 10.00 s (10.00–10.00) `install` | 1.25 | 0.25 | 0.10 | 0.50 / 0.40 / 2.00 / 5.00 | 1.00 / 1.00 / 1.00 / 1.00 |"
	if !strings.Contains(table, want) {
		t.Errorf("peerTable() lacks\n%s\nin\n%s", want, table)
	}
	if !strings.Contains(table, "| configmaps 100 yaml | no-op apply |") || strings.Contains(table, "100 go") {
		t.Errorf("peerTable() should hold the no-op apply of the YAML release only:\n%s", table)
	}
	delete(r.samples, cell{row{synth.ConfigMaps, 100, formatYAML}, opApplyNoop, toolHelm})
	if m := r.missing(); len(m) != 1 || !strings.Contains(m[0], "no-op apply / helm: 0 of 3 runs") {
		t.Errorf("missing() without Helm's no-op upgrade = %v", m)
	}
}

func TestPeerAcceptanceJudgesTheFloorAndKubectlRatios(t *testing.T) {
	cfg := smallConfig(t)
	cfg.PeerSizes = []int{1000}
	cfg.Sizes = []int{1000}
	r := newResults(cfg)
	cm := row{synth.ConfigMaps, 1000, formatYAML}
	add := func(op, tool string, wall time.Duration) {
		for range 3 {
			r.add(cm, op, tool, sample{Wall: wall})
		}
	}
	add(opApplyFresh, toolPiceli, 1150*time.Millisecond)
	add(opApplyFresh, toolFloor, time.Second)
	add(opApplyNoop, toolPiceli, 200*time.Millisecond)
	add(opApplyNoop, toolKubectl, 2*time.Second)
	v := r.peerAcceptance()
	if !v[0].done || !v[0].Met || !strings.HasPrefix(v[0].Value, "1.15 ") {
		t.Errorf("fresh apply at 1.15 of the floor: %+v, want met", v[0])
	}
	if !v[1].done || v[1].Met || !strings.HasPrefix(v[1].Value, "0.10 ") {
		t.Errorf("no-op apply at 0.10 of kubectl's: %+v, want not met", v[1])
	}
}

func TestRotateGivesEveryToolItsTurnFirst(t *testing.T) {
	s := []string{"a", "b", "c", "d"}
	for k, want := range []string{"abcd", "bcda", "cdab", "dabc", "abcd"} {
		if got := strings.Join(rotate(s, k), ""); got != want {
			t.Errorf("rotate(abcd, %d) = %s, want %s", k, got, want)
		}
	}
	if strings.Join(s, "") != "abcd" {
		t.Errorf("rotate changed its input: %v", s)
	}
}

func TestPeersOnlyExpectsNoRenderNorNoSync(t *testing.T) {
	cfg := smallConfig(t)
	cfg.PeersOnly = true
	r := newResults(cfg)
	for _, k := range r.expected() {
		if k.Op == opRender || k.Op == opApplyNoSync || k.Row.Format != formatYAML {
			t.Errorf("a -peers-only run expects %s / %s / %s", k.Row, k.Op, k.Tool)
		}
	}
	if table := r.table(); strings.Contains(table, "| render |") || strings.Contains(table, "without fsync") {
		t.Errorf("the table of a -peers-only run shows rows it did not measure:\n%s", table)
	}
}

func TestHelmIsRequired(t *testing.T) {
	var stderr strings.Builder
	_, err := parseFlags([]string{"-nofsync", "x"}, &stderr)
	if err == nil || !strings.Contains(stderr.String(), "-helm is required") {
		t.Fatalf("parseFlags without -helm = %v (%s), want a refusal", err, stderr.String())
	}
	cfg, err := parseFlags([]string{"-nofsync", "x", "-helm", "h", "-peers-only", "-peer-sizes", "1000,5000"}, &stderr)
	if err != nil || !cfg.PeersOnly || len(cfg.rows()) != 2 {
		t.Fatalf("parseFlags -peers-only = %+v, %v; want two peer rows", cfg, err)
	}
}
