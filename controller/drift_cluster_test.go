package controller_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// driftEvery is the drift interval of the drift tests' Releases, beside
// their 2 s source interval.
const driftEvery = 4 * time.Second

// edit changes ConfigMap ns/name's data.value as `kubectl edit` does: a
// patch (an update) by the field manager "kubectl-edit".
func (h *harness) edit(t *testing.T, ns, name, value string) {
	t.Helper()
	patch := client.RawPatch(types.MergePatchType, []byte(`{"data":{"value":"`+value+`"}}`))
	cm, _ := h.configMap(t, ns, name)
	if err := h.client.Patch(sandboxtest.Context(t, 30*time.Second), cm, patch, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
}

// applyAs sets ConfigMap ns/name's data.value by server-side apply as
// manager, forcing ownership, as another tool that declares the field
// does.
func (h *harness) applyAs(t *testing.T, ns, name, manager, value string) {
	t.Helper()
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"value":"` + value + `"}}`)
	cm, _ := h.configMap(t, ns, name)
	if err := h.client.Patch(sandboxtest.Context(t, 30*time.Second), cm, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner(manager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
}

// driftedField finds the field path of object name in rel's drift status.
func driftedField(rel *v1alpha1.Release, name, path string) *v1alpha1.DriftedField {
	if rel.Status.Drift == nil {
		return nil
	}
	for _, o := range rel.Status.Drift.Objects {
		for _, f := range o.Fields {
			if o.Kind == "ConfigMap" && o.Name == name && f.Path == path {
				return &f
			}
		}
	}
	return nil
}

// TestDriftIsReportedOrCorrectedAndAnotherAppliersFieldIsLeftAlone is
// issue 35's first acceptance point. The same kubectl edit of a declared
// field is made under two Releases: in report mode Drifted names the
// object, the field and the manager within one drift interval and nothing
// is written; in correct mode the field is restored within one interval.
// Then a field another manager takes by server-side apply is reported in
// correct mode and never touched.
func TestDriftIsReportedOrCorrectedAndAnotherAppliersFieldIsLeftAlone(t *testing.T) {
	h := startController(t, 1)
	report, correct := h.ns, h.others[0]
	h.src.set(configMaps("one", "two"))
	for ns, mode := range map[string]string{report: v1alpha1.DriftReport, correct: v1alpha1.DriftCorrect} {
		h.grantDeployer(t, ns, nil)
		h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
			Policy: &v1alpha1.Policy{Actions: []string{"create"}},
			Drift:  &v1alpha1.Drift{Mode: mode, Interval: metav1.Duration{Duration: driftEvery}},
		})
	}
	for _, ns := range []string{report, correct} {
		h.waitFor(t, ns, "app", "the release is applied and compared once", func(r *v1alpha1.Release) bool {
			c := meta.FindStatusCondition(r.Status.Conditions, v1alpha1.ConditionDrifted)
			return r.Status.State == v1alpha1.StateReady && c != nil && c.Status == metav1.ConditionFalse
		})
	}

	edited := time.Now()
	h.edit(t, report, "cm-0", "edited")
	h.edit(t, correct, "cm-0", "edited")
	within := driftEvery + 10*time.Second // one interval, and one pass
	rel := h.waitForWithin(t, report, "app", within, "report mode names the edited field and its manager", func(r *v1alpha1.Release) bool {
		f := driftedField(r, "cm-0", "data.value")
		return f != nil && f.Manager == "kubectl-edit" && !f.Applied && meta.IsStatusConditionTrue(r.Status.Conditions, v1alpha1.ConditionDrifted)
	})
	t.Logf("report mode named the edit %s after it", time.Since(edited).Round(100*time.Millisecond))
	if rel.Status.State != v1alpha1.StateDrifted || len(rel.Status.Drift.Objects) != 1 {
		t.Errorf("report mode: state %s, drift %+v; want Drifted with cm-0 alone", rel.Status.State, rel.Status.Drift)
	}
	h.waitForWithin(t, correct, "app", within, "correct mode restores the edited field", func(r *v1alpha1.Release) bool {
		cm, _ := h.configMap(t, correct, "cm-0")
		c := meta.FindStatusCondition(r.Status.Conditions, v1alpha1.ConditionDrifted)
		return cm.Data["value"] == "one" && r.Status.Drift != nil && r.Status.Drift.Corrected != "" && c != nil && c.Reason == "Corrected"
	})
	t.Logf("correct mode restored the edit %s after it", time.Since(edited).Round(100*time.Millisecond))

	before := h.versions(t, report)
	time.Sleep(3 * driftEvery)
	for obj, v := range h.versions(t, report) {
		if before[obj] != v {
			t.Errorf("report mode wrote %s (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
	if cm, _ := h.configMap(t, report, "cm-0"); cm.Data["value"] != "edited" {
		t.Errorf("report mode changed the edited value to %q", cm.Data["value"])
	}

	h.applyAs(t, correct, "cm-1", "other-applier", "theirs")
	rel = h.waitForWithin(t, correct, "app", within, "correct mode reports another applier's field", func(r *v1alpha1.Release) bool {
		f := driftedField(r, "cm-1", "data.value")
		return f != nil && f.Manager == "other-applier" && f.Applied && r.Status.Drift.Uncorrected != ""
	})
	t.Logf("not corrected: %s", rel.Status.Drift.Uncorrected)
	theirs, _ := h.configMap(t, correct, "cm-1")
	time.Sleep(3 * driftEvery)
	if cm, _ := h.configMap(t, correct, "cm-1"); cm.Data["value"] != "theirs" || cm.ResourceVersion != theirs.ResourceVersion {
		t.Errorf("correct mode touched another applier's field: value %q, resourceVersion %s → %s", cm.Data["value"], theirs.ResourceVersion, cm.ResourceVersion)
	}
}

// waitForWithin is waitFor with its own bound.
func (h *harness) waitForWithin(t *testing.T, ns, name string, d time.Duration, what string, ok func(*v1alpha1.Release) bool) *v1alpha1.Release {
	t.Helper()
	var last *v1alpha1.Release
	eventually(t, d, what, func() bool {
		last = h.release(t, ns, name)
		return ok(last)
	})
	return last
}
