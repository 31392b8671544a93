package plan_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// oneChange is a release of eight objects in two waves in which one
// ConfigMap field changes and everything else is unchanged.
func oneChange() *plan.Plan {
	p := &plan.Plan{Schema: plan.Schema, Release: plan.Release{Name: "shop"}, Target: plan.Target{Namespace: "shop"}}
	add := func(stage plan.Stage, kind, group, name string, a plan.Action, ch ...plan.Change) {
		p.Steps = append(p.Steps, plan.Step{Ref: object.Ref{Group: group, Kind: kind, Namespace: "shop", Name: name}, Stage: stage, Action: a, Changes: ch})
	}
	for _, n := range []string{"api", "cart", "orders"} {
		add(plan.StageConfig, "ConfigMap", "", n, plan.NoOp)
	}
	add(plan.StageConfig, "ConfigMap", "", "web", plan.Update, plan.Change{Path: "data.greeting", Kind: plan.Changed, From: "hello", To: "hi"})
	for _, n := range []string{"api", "cart", "orders", "web"} {
		add(plan.StageWorkloads, "Deployment", "apps", n, plan.NoOp)
	}
	p.Waves = []plan.Wave{{Stage: plan.StageConfig, Nodes: []int{0, 1, 2, 3}}, {Stage: plan.StageWorkloads, Nodes: []int{4, 5, 6, 7}}}
	return p
}

// Plan text shows what changes and counts the unchanged objects of each
// wave; ShowUnchanged lists them as well.
func TestWriteCountsUnchangedPerWave(t *testing.T) {
	for _, tc := range []struct {
		name, golden string
		opts         plan.WriteOptions
	}{
		{"unchanged objects are counted per wave", "one-change.golden", plan.WriteOptions{}},
		{"ShowUnchanged lists every unchanged object", "one-change-show-unchanged.golden", plan.WriteOptions{ShowUnchanged: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			oneChange().Write(&b, tc.opts)
			matchGolden(t, tc.golden, b.Bytes())
		})
	}
}

// A plan made for an environment names it on its first line.
func TestWriteNamesTheEnvironment(t *testing.T) {
	p := oneChange()
	p.Environment = &plan.Environment{Name: "staging"}
	var b bytes.Buffer
	p.Write(&b, plan.WriteOptions{})
	want := "release shop (environment staging) in namespace shop: 1 to update, 7 unchanged\n"
	if first, _, _ := bytes.Cut(b.Bytes(), []byte("\n")); string(first)+"\n" != want {
		t.Errorf("Write() first line = %q, want %q", first, want)
	}
}

func TestWriteNamesTheKubernetesVersionChartsSaw(t *testing.T) {
	p := oneChange()
	p.Capabilities = &plan.Capabilities{KubeVersion: "v1.35.2"}
	var b bytes.Buffer
	p.Write(&b, plan.WriteOptions{})
	lines := bytes.Split(b.Bytes(), []byte("\n"))
	if want := "charts rendered against Kubernetes v1.35.2 and the API versions it serves"; string(lines[1]) != want {
		t.Errorf("Write() second line = %q, want %q", lines[1], want)
	}
}

// matchGolden compares got with testdata/name, which -update rewrites.
func matchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
