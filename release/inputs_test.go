package release

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/wire"
	"github.com/pynenc/piceli/plan"
)

// rendered loads and renders r's composition without a cluster.
func rendered(t *testing.T, r *Release) *session {
	t.Helper()
	s, err := r.load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.key = make([]byte, 32)
	return s
}

// A plan records the digest of the files it was rendered from only when
// those files are all its objects depend on, and every object comes back
// the same from the stored plan.
func TestOnlyAPlanOfPlainFilesRecordsItsInputs(t *testing.T) {
	r := openLocal(t, "")
	if got := rendered(t, r).inputs(); got == "" {
		t.Fatal("a plan of one ConfigMap file records no inputs")
	}
	cases := map[string]func(*session){
		"a Secret": func(s *session) {
			s.objects = append(s.objects, object.Declared{Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}}}})
		},
		"an integer a JSON number does not hold": func(s *session) {
			s.objects[0].Object.Object["data"] = map[string]any{"n": int64(1<<53 + 1)}
		},
		"no sources (a Go composition, or charts)": func(s *session) { s.sources = nil },
		"declared secrets":                         func(s *session) { s.declared = make([]wire.SecretInfo, 1) },
	}
	for name, change := range cases {
		s := rendered(t, r)
		change(s)
		if got := s.inputs(); got != "" {
			t.Errorf("with %s, inputs() = %q, want none", name, got)
		}
	}
}

// The digest changes with any byte of any file, and with a file's name.
func TestTheInputsDigestCoversEveryByteAndName(t *testing.T) {
	r := openLocal(t, "")
	key := make([]byte, 32)
	srcs := func() []manifest.Source {
		s, err := manifest.Sources(r.spec.Release.Composition.File)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := r.inputsDigest(key, srcs())
	if again := r.inputsDigest(key, srcs()); again != before {
		t.Fatalf("the same files digest as %s, then %s", before, again)
	}
	cm := filepath.Join(filepath.Dir(r.path), "manifests", "cm.yaml")
	data, _ := os.ReadFile(cm)
	os.WriteFile(cm, append(data, "# a comment\n"...), 0o644)
	if got := r.inputsDigest(key, srcs()); got == before {
		t.Error("a comment added to a file leaves the digest as it was")
	}
	os.WriteFile(cm, data, 0o644)
	if got := r.inputsDigest(key, srcs()); got != before {
		t.Error("the file put back as it was digests otherwise")
	}
	os.Rename(cm, filepath.Join(filepath.Dir(cm), "renamed.yaml"))
	if got := r.inputsDigest(key, srcs()); got == before {
		t.Error("a file renamed leaves the digest as it was")
	}
}

// The objects an apply takes from a plan are the objects a render gives:
// the plan's deletes and the namespace the planner adds are not declared.
func TestThePlansObjectsAreTheRenders(t *testing.T) {
	r := openLocal(t, "")
	dir := filepath.Join(filepath.Dir(r.path), "manifests")
	os.WriteFile(filepath.Join(dir, "more.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  n: \"1\"\n  port: 8080\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n"), 0o644)
	s := rendered(t, r)
	dig := planner.Digester{Key: s.key}
	p := &plan.Plan{Inputs: s.inputs()}
	p.Steps = append(p.Steps, plan.Step{Ref: object.Ref{Kind: "Namespace", Name: "ns"}, Action: plan.Create, Origin: planner.TargetNamespaceOrigin,
		Manifest: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns"}}})
	for i := len(s.objects) - 1; i >= 0; i-- { // the plan's order is not the render's
		o := s.objects[i]
		p.Steps = append(p.Steps, plan.Step{Ref: object.RefOf(o.Object), Action: plan.NoOp, Origin: o.Origin, Manifest: storedJSON(t, dig.Sealed(o.Object))})
	}
	p.Steps = append(p.Steps, plan.Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "gone"}, Action: plan.Delete})
	got := r.plannedObjects(p, p.Inputs)
	if len(got) != len(s.objects) {
		t.Fatalf("the plan gives %d objects, the render %d", len(got), len(s.objects))
	}
	for i := range got {
		if got[i].Origin != s.objects[i].Origin || !reflect.DeepEqual(storedJSON(t, got[i].Object.Object), storedJSON(t, s.objects[i].Object.Object)) {
			t.Errorf("object %d: the plan gives %s %v, the render %s %v", i, got[i].Origin, got[i].Object.Object, s.objects[i].Origin, s.objects[i].Object.Object)
		}
	}
	if r.plannedObjects(p, "sha256:other") != nil {
		t.Error("a plan of other inputs gave its objects")
	}
	p.Inputs = ""
	if r.plannedObjects(p, "") != nil {
		t.Error("a plan that records no inputs gave its objects")
	}
}

// storedJSON is v as a stored plan gives it back.
func storedJSON(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
