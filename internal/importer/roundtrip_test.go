package importer_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/builtin"
	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/internal/importgen"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/release"
)

// TestRoundTrip is acceptance 1: for every set, render(import(x)) equals
// x after importer.Normal, object by object.
func TestRoundTrip(t *testing.T) {
	for _, set := range roundTripSets {
		t.Run(set.name, func(t *testing.T) {
			is := importSet(t, set)
			if is.err != nil {
				t.Fatalf("import %s: %v", set.name, is.err)
			}
			if is.res.App != set.app || is.res.Namespace != set.namespace {
				t.Fatalf("import chose app %q in namespace %q, want %q in %q", is.res.App, is.res.Namespace, set.app, set.namespace)
			}
			want, err := importer.Normal(is.input, set.namespace, set.app)
			if err != nil {
				t.Fatal(err)
			}
			got, err := importer.Normal(renderModule(t, is.res.Spec), set.namespace, set.app)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(refs(want), refs(got)); diff != "" {
				t.Fatalf("render(import(%s)) objects (-imported +rendered):\n%s", set.name, diff)
			}
			for ref, w := range want {
				if diff := cmp.Diff(w, got[ref]); diff != "" {
					t.Errorf("%s renders differently (-imported +rendered):\n%s", ref, diff)
				}
			}
		})
	}
}

// renderModule renders a generated module through the release API, as
// piceli render does.
func renderModule(t *testing.T, spec string) []*unstructured.Unstructured {
	t.Helper()
	r, err := release.Open(spec, release.Options{CacheDir: sharedDir(t) + "/cache"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.Render(t.Context(), release.RenderOptions{})
	if err != nil {
		t.Fatalf("render the imported module: %v", err)
	}
	return objs
}

func refs(m map[object.Ref]map[string]any) []string {
	var out []string
	for _, r := range slices.SortedFunc(maps.Keys(m), func(a, b object.Ref) int { return cmpRef(a, b) }) {
		out = append(out, r.String())
	}
	return out
}

func cmpRef(a, b object.Ref) int {
	if a.String() < b.String() {
		return -1
	}
	if a.String() > b.String() {
		return 1
	}
	return 0
}

// TestRoundTripUsesTheBestForm keeps the round trip from passing on YAML
// files alone: Piceli's own output comes back as builder calls, every
// object of a kind with a Go type as a builder call or a literal, and
// only kinds without one as YAML files.
func TestRoundTripUsesTheBestForm(t *testing.T) {
	allBuilders := map[string]bool{"shop": true, "builders": true}
	for _, set := range roundTripSets {
		t.Run(set.name, func(t *testing.T) {
			is := importSet(t, set)
			if is.err != nil {
				t.Fatalf("import %s: %v", set.name, is.err)
			}
			for i, u := range is.input {
				got := is.res.Forms[i]
				want := expectedForm(u, allBuilders[set.name])
				if got != want && !(want == importgen.Literal && got == importgen.Builder) {
					t.Errorf("%s %s: form %s, want %s", set.name, object.RefOf(u), got, want)
				}
			}
		})
	}
}

// expectedForm is the form an object must at least get: a builder call
// for Piceli's own objects and for Secrets with keys (one without holds
// no value, and a literal says it), a literal for other
// kinds with a Go type, a file for the rest.
func expectedForm(u *unstructured.Unstructured, piceli bool) importgen.Form {
	_, typed := builtin.Scheme().New(u.GroupVersionKind())
	switch {
	case typed != nil:
		return importgen.File
	case piceli, object.IsSecret(u) && hasKeys(u):
		return importgen.Builder
	}
	return importgen.Literal
}

// TestLargeSetIsLarge keeps the large public set at acceptance size: at
// least 50 objects of at least 12 kinds.
func TestLargeSetIsLarge(t *testing.T) {
	is := importSet(t, roundTripSets[len(roundTripSets)-1])
	kinds := map[string]bool{}
	for _, u := range is.input {
		kinds[u.GetKind()] = true
	}
	if len(is.input) < 50 || len(kinds) < 12 {
		t.Errorf("kube-prometheus set: %d objects of %d kinds, want at least 50 of 12", len(is.input), len(kinds))
	}
	t.Logf("kube-prometheus set: %d objects of %d kinds", len(is.input), len(kinds))
}

// hasKeys reports whether a Secret has data or stringData keys.
func hasKeys(u *unstructured.Unstructured) bool {
	data, _, _ := unstructured.NestedMap(u.Object, "data")
	str, _, _ := unstructured.NestedMap(u.Object, "stringData")
	return len(data)+len(str) > 0
}
