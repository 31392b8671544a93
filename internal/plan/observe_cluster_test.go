package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// Options.Observe sees each declared object the plan's LISTs found, once,
// as listed (with its UID and status), and nothing absent or undeclared:
// an approval check takes their readiness from there.
func TestAPlanHandsOverWhatItsListsFound(t *testing.T) {
	f := example(t, "hello")
	f.input.Objects = nil
	for _, name := range []string{"present", "absent"} {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}
		cm.SetName(name)
		cm.SetNamespace(f.ns)
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
	}
	undeclared := f.input.Objects[1].Object.DeepCopy()
	undeclared.SetName("undeclared")
	f.apply(t, f.input.Objects[0].Object, undeclared)
	seen := map[string]int{}
	uids := map[string]string{}
	f.plan(t, plan.Options{Observe: func(ref object.Ref, live *unstructured.Unstructured) {
		seen[ref.String()]++
		uids[ref.String()] = string(live.GetUID())
	}})
	want := map[string]int{object.RefOf(f.input.Objects[0].Object).String(): 1}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("objects observed (-want +got):\n%s", diff)
	}
	for ref, uid := range uids {
		if uid == "" {
			t.Errorf("%s was observed without its UID", ref)
		}
	}
}
