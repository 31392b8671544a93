package apply

import (
	"encoding/base64"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

// secretObject returns a rendered Secret of the test release, its value in data
// as secret.Inject leaves it.
func secretObject(name, value string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata": map[string]any{
			"name": name, "namespace": testNamespace,
			"labels": map[string]any{"piceli.dev/release": "shop"},
		},
		"data": map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(value))},
	}}
}

// TestApplyRetriesAConflictedSecretUpdateWhoseFieldsAreUnchanged is the
// first case of TestApplyRetriesAConflictedUpdateOnlyWhileItsFieldsAreUnchanged
// for a Secret: someone annotates it after the plan, the conditional update
// meets 409, and since its data is as the plan observed the write should be
// retried on the new version.
//
// The planner and the engine compute Observed.Fields with one definition
// (plan.Digester.Fields), Secret data compared as keyed digests.
func TestApplyRetriesAConflictedSecretUpdateWhoseFieldsAreUnchanged(t *testing.T) {
	c := newFakeCluster()
	live := c.seed(t, secretObject("db", "old"), testManager)
	desired := secretObject("db", "new")
	in := inputOf(t, []plan.Step{updateStep(desired, live)})
	in.Desired[in.Plan.Steps[0].Ref] = desired
	c.edit(t, "Secret", "db", func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"note": "theirs"}) })
	e := newEngine(t, c, Options{})

	if _, err := e.Apply(t.Context(), "run-1", in); err != nil {
		t.Errorf("Apply() = %v, want nil: only an annotation changed since the plan", err)
	}
	recs, _ := replayRun(t, e.StateDir, "run-1")
	if got := lastRecord(t, recs, journal.Outcome, 0).Result; got != journal.ResultApplied {
		t.Errorf("outcome of the update = %s, want applied", got)
	}
	if n := len(c.sent("patch", "db")); n != 2 {
		t.Errorf("%d patches of db sent, want 2: the conflicted write and its retry", n)
	}
	got, _, _ := unstructured.NestedString(c.live(resources["Secret"], testNamespace, "db").Object, "data", "password")
	if want := base64.StdEncoding.EncodeToString([]byte("new")); got != want {
		t.Errorf("db's password afterwards = %q, want %q", got, want)
	}
}
