package apply

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

// TestApplyRetriesAConflictedUpdateOnlyWhileItsFieldsAreUnchanged runs an
// update of a ConfigMap whose write meets 409 Conflict: the update is
// conditional on the resourceVersion read before the run, and a conflict
// is retried on the new version only while the fields the plan sets still
// hold what the plan observed.
func TestApplyRetriesAConflictedUpdateOnlyWhileItsFieldsAreUnchanged(t *testing.T) {
	tests := []struct {
		name        string
		meddle      func(t *testing.T, c *fakeCluster) // after the plan, before the run
		wantErr     func(error) bool
		wantResult  journal.Result
		wantPatches int
		wantValue   string // a's data.value afterwards
	}{
		{
			name: "an object changed only in fields the plan does not set is written on its new version",
			meddle: func(t *testing.T, c *fakeCluster) {
				c.edit(t, "ConfigMap", "a", func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"note": "theirs"}) })
			},
			wantErr: isNil, wantResult: journal.ResultApplied, wantPatches: 2, wantValue: "a-2",
		},
		{
			name: "an object changed in a field the plan sets is refused, not forced",
			meddle: func(t *testing.T, c *fakeCluster) {
				c.edit(t, "ConfigMap", "a", func(u *unstructured.Unstructured) {
					unstructured.SetNestedField(u.Object, "theirs", "data", "value")
				})
			},
			wantErr: is(ErrChanged), wantResult: journal.ResultFailed, wantPatches: 1, wantValue: "theirs",
		},
		{
			name:    "an object deleted since the plan is not created again",
			meddle:  func(t *testing.T, c *fakeCluster) { c.remove("a") },
			wantErr: is(ErrChanged), wantResult: journal.ResultFailed, wantPatches: 1, wantValue: "",
		},
		{
			name: "an object deleted and created again by someone else is not written",
			meddle: func(t *testing.T, c *fakeCluster) {
				c.remove("a")
				c.seed(t, configMap("a", "theirs"), "other-team")
			},
			wantErr: is(ErrChanged), wantResult: journal.ResultFailed, wantPatches: 1, wantValue: "theirs",
		},
		{
			name: "a conflict answered every time is given up after five attempts",
			meddle: func(t *testing.T, c *fakeCluster) {
				c.failOn("patch", "a", apierrors.NewConflict(configMapsKind, "a", errors.New("the object has been modified")))
			},
			wantErr: apierrors.IsConflict, wantResult: journal.ResultFailed, wantPatches: 5, wantValue: "a-1",
		},
		{
			name: "a conflict with another field manager is not retried",
			meddle: func(t *testing.T, c *fakeCluster) {
				causes := []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl"`, Field: ".data.value"}}
				c.failOn("patch", "a", apierrors.NewApplyConflict(causes, "Apply failed with 1 conflict"))
			},
			wantErr: apierrors.IsConflict, wantResult: journal.ResultFailed, wantPatches: 1, wantValue: "a-1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			live := c.seed(t, configMap("a", "a-1"), testManager)
			in := inputOf(t, []plan.Step{updateStep(configMap("a", "a-2"), live)})
			tt.meddle(t, c)
			e := newEngine(t, c, Options{})

			_, err := e.Apply(t.Context(), "run-1", in)
			if !tt.wantErr(err) {
				t.Fatalf("Apply() = %v, not the error the case wants", err)
			}
			recs, _ := replayRun(t, e.StateDir, "run-1")
			if got := lastRecord(t, recs, journal.Outcome, 0).Result; got != tt.wantResult {
				t.Errorf("outcome of the update = %s, want %s", got, tt.wantResult)
			}
			patches := c.sent("patch", "a")
			if len(patches) != tt.wantPatches {
				t.Errorf("%d patches of a sent, want %d", len(patches), tt.wantPatches)
			}
			if got := valueOf(c.configMap("a")); got != tt.wantValue {
				t.Errorf("a's value afterwards = %q, want %q", got, tt.wantValue)
			}
			if diff := cmp.Diff(live.GetResourceVersion(), patchedVersion(t, patches[0])); diff != "" {
				t.Errorf("first write's resourceVersion (-observed +sent):\n%s", diff)
			}
		})
	}
}

// patchedVersion returns the resourceVersion an apply was conditional on.
func patchedVersion(t *testing.T, a clienttesting.Action) string {
	t.Helper()
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(a.(clienttesting.PatchActionImpl).GetPatch()); err != nil {
		t.Fatal(err)
	}
	return u.GetResourceVersion()
}
