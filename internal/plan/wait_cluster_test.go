package plan_test

import (
	"testing"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/spec"
)

// TestPlanRecordsWhichObjectsAreNotWaitedFor plans the hello example
// against the sandbox under both release policies: each step records
// whether apply waits for it, the object's annotation beating the policy.
func TestPlanRecordsWhichObjectsAreNotWaitedFor(t *testing.T) {
	f := example(t, "hello")
	f.object(t, "Service", "web").SetAnnotations(map[string]string{object.WaitAnnotation: "false"})

	ready := f.plan(t, plan.Options{})
	if got := find(t, ready, "Service", "web").NoWait; got != plan.NoWaitAnnotated {
		t.Errorf("under the default policy, Service/web NoWait = %q, want %q", got, plan.NoWaitAnnotated)
	}
	if got := find(t, ready, "Deployment", "web").NoWait; got != "" {
		t.Errorf("under the default policy, Deployment/web NoWait = %q, want it waited for", got)
	}

	f.object(t, "Deployment", "web").SetAnnotations(map[string]string{object.WaitAnnotation: "true"})
	f.input.Wait = spec.WaitNone
	none := f.plan(t, plan.Options{})
	for _, s := range none.Steps {
		want := plan.NoWaitRelease
		switch s.Ref.Kind {
		case "Service":
			want = plan.NoWaitAnnotated
		case "Deployment":
			want = ""
		}
		if s.NoWait != want {
			t.Errorf("under wait = none, %s NoWait = %q, want %q", s.Ref, s.NoWait, want)
		}
	}
	a, errA := plan.ComputeHash(ready)
	b, errB := plan.ComputeHash(none)
	if errA != nil || errB != nil || a == b {
		t.Errorf("the plans of both policies hash to %s and %s (errors %v, %v), want different hashes", a, b, errA, errB)
	}
}
