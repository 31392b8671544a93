package plan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestPlanWritesOnlyToAllowedNamespaces expects a plan to refuse an object
// outside the target namespace unless Input.Namespaces names its
// namespace, and to list every namespace it writes.
func TestPlanWritesOnlyToAllowedNamespaces(t *testing.T) {
	f := example(t, "hello")
	other := f.sb.Namespace(t)
	f.object(t, "Service", "web").SetNamespace(other)

	_, err := plan.Make(sandboxtest.Context(t, time.Minute), f.client, f.input, plan.Options{Key: testKey})
	if !errors.Is(err, plan.ErrNotAllowed) || !strings.Contains(err.Error(), "Service/"+other+"/web") || !strings.Contains(err.Error(), "target.namespaces") {
		t.Fatalf("plan.Make() error = %v, want plan.ErrNotAllowed naming Service/%s/web and target.namespaces", err, other)
	}

	f.input.Namespaces = []string{other}
	p := f.plan(t, plan.Options{})
	want := []string{f.ns, other}
	slices.Sort(want)
	if !slices.Equal(p.Namespaces, want) {
		t.Errorf("plan.Namespaces = %q, want %q", p.Namespaces, want)
	}
}
