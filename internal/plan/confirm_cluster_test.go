package plan_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/spec"
)

// An approval check (Options.Approved) dry-runs only the objects written
// since the approved plan saw them; the others, absent still or at the
// same resourceVersion, are taken from the approved plan. A change to a
// field the plan sets is still found (plan.Stale), and a change elsewhere
// in the object is not staleness.
func TestConfirmingAPlanDryRunsOnlyWhatWasWritten(t *testing.T) {
	f := example(t, "hello")
	f.input.Objects = nil
	var present []*unstructured.Unstructured
	for i := range 10 {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"mode": "fast"}}}
		cm.SetName(fmt.Sprintf("cm-%d", i))
		cm.SetNamespace(f.ns)
		cm.SetLabels(map[string]string{object.ReleaseLabel: "hello"})
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
		if i < 6 {
			present = append(present, cm)
		}
	}
	f.apply(t, present...) // cm-0..5 exist, cm-6..9 are planned absent
	approved := f.plan(t, plan.Options{})

	cms := f.sb.Clientset.CoreV1().ConfigMaps(f.ns)
	patch := func(name, body string) {
		t.Helper()
		if _, err := cms.Patch(t.Context(), name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
			t.Fatal(err)
		}
	}
	patch("cm-0", `{"data":{"mode":"slow"}}`)               // a field the plan sets
	patch("cm-1", `{"metadata":{"annotations":{"x":"y"}}}`) // a field it does not set
	var c counter
	fresh, err := plan.Make(sandboxtest.Context(t, time.Minute), f.connectCounting(t, &c), f.input, plan.Options{Key: testKey, Approved: approved})
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Validate(fresh); err != nil {
		t.Fatal(err)
	}
	if got := c.applies.Load() + c.other.Load(); got != 2 {
		t.Errorf("confirming the plan sent %d dry-runs, want 2 (cm-0 and cm-1, written since the plan)", got)
	}
	reasons := plan.Stale(approved, fresh)
	if len(reasons) != 1 || !strings.HasPrefix(reasons[0], "ConfigMap/"+f.ns+"/cm-0: ") {
		t.Errorf("plan.Stale(approved, fresh) = %q, want one reason, for cm-0", reasons)
	}
}

// A plan confirmed with nothing changed is the approved plan: the same
// hash, and not one dry-run.
func TestConfirmingAnUnchangedPlanSendsNoDryRun(t *testing.T) {
	f := example(t, "hello")
	f.input.Objects = f.input.Objects[:0]
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}
	u.SetName("settings")
	u.SetNamespace(f.ns)
	absent := u.DeepCopy()
	absent.SetName("later")
	f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: u}, object.Declared{Origin: "test", Object: absent})
	f.apply(t, u)
	approved := f.plan(t, plan.Options{})
	var c counter
	fresh, err := plan.Make(sandboxtest.Context(t, time.Minute), f.connectCounting(t, &c), f.input, plan.Options{Key: testKey, Approved: approved})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.applies.Load() + c.other.Load(); n != 0 {
		t.Errorf("confirming an unchanged plan sent %d writes or dry-runs, want 0", n)
	}
	if a, b := hashOf(t, approved), hashOf(t, fresh); a != b {
		t.Errorf("hash of the confirmed plan = %s, want the approved %s", b, a)
	}
}

// An approval check that takes a step from the approved plan still finds
// a changed readiness policy: [release] wait = "none" since the plan makes
// it stale, for an object planned absent and for one unchanged in the
// cluster alike.
func TestConfirmingAPlanFindsAChangedReadinessPolicy(t *testing.T) {
	f := example(t, "hello")
	f.input.Objects = nil
	for _, name := range []string{"present", "absent"} {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}}
		cm.SetName(name)
		cm.SetNamespace(f.ns)
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
	}
	f.apply(t, f.input.Objects[0].Object)
	approved := f.plan(t, plan.Options{})
	f.input.Wait = spec.WaitNone
	fresh := f.plan(t, plan.Options{Approved: approved})
	got := strings.Join(plan.Stale(approved, fresh), "\n")
	for _, name := range []string{"present", "absent"} {
		if want := "ConfigMap/" + f.ns + "/" + name + ": the readiness policy changed"; !strings.Contains(got, want) {
			t.Errorf("plan.Stale(approved, fresh) =\n%s\nwant it to contain %q", got, want)
		}
	}
}

// connectCounting connects to the fixture's sandbox counting requests in c.
func (f *fixture) connectCounting(t *testing.T, c *counter) *kube.Client {
	t.Helper()
	client, err := kube.Connect(t.Context(), kube.Options{Kubeconfig: f.sb.Kubeconfig, Context: f.sb.Context, WrapTransport: c.wrap})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// An object at the UID and resourceVersion the release's records say its
// last write left, with the manifest written then, is a no-op without a
// dry-run; written since by anyone where the manifest sets a value, or
// with a new manifest, it is dry-run again. A write elsewhere on it (here
// another manager's annotation, as a controller writes status) leaves the
// values the records digest, and it stays a no-op without a dry-run; with
// no digest in the records, any write since means a dry-run.
func TestAPlanTrustsWhatTheReleaseLeftOnlyWhileNobodyWroteIt(t *testing.T) {
	f := example(t, "hello")
	f.input.Objects = nil
	for i := range 4 {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"mode": "fast"}}}
		cm.SetName(fmt.Sprintf("cm-%d", i))
		cm.SetNamespace(f.ns)
		cm.SetLabels(map[string]string{object.ReleaseLabel: "hello"})
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
	}
	f.applyAll(t)
	p := f.plan(t, plan.Options{})
	settled := map[object.Ref]plan.Settled{}
	for _, s := range p.Steps {
		settled[s.Ref] = plan.Settled{UID: s.Observed.UID, ResourceVersion: s.Observed.ResourceVersion, Desired: s.Desired, Fields: s.Observed.Fields}
	}
	noDigest := find(t, p, "ConfigMap", "cm-3").Ref
	settled[noDigest] = plan.Settled{UID: settled[noDigest].UID, ResourceVersion: settled[noDigest].ResourceVersion, Desired: settled[noDigest].Desired}
	cms := f.sb.Clientset.CoreV1().ConfigMaps(f.ns)
	for name, patch := range map[string]string{
		"cm-0": `{"metadata":{"annotations":{"x":"y"}}}`, // not a path the manifest sets
		"cm-2": `{"data":{"mode":"edited"}}`,             // a value the manifest sets
		"cm-3": `{"metadata":{"annotations":{"x":"y"}}}`, // records without a digest
	} {
		if _, err := cms.Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
			t.Fatal(err)
		}
	}
	unstructured.SetNestedField(f.input.Objects[1].Object.Object, "slow", "data", "mode")
	var c counter
	fresh, err := plan.Make(sandboxtest.Context(t, time.Minute), f.connectCounting(t, &c), f.input, plan.Options{Key: testKey, Settled: settled})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.applies.Load(); n != 3 {
		t.Errorf("plan sent %d dry-runs, want 3 (cm-1 with a new manifest, cm-2's value edited, cm-3 written with no digest recorded)", n)
	}
	want := map[string]plan.Action{"cm-0": plan.NoOp, "cm-1": plan.Update, "cm-3": plan.NoOp}
	for name, action := range want {
		if s := find(t, fresh, "ConfigMap", name); s.Action != action || s.Observed.Fields == "" {
			t.Errorf("%s: action %s, observed fields %q; want %s and a fields digest", s.Ref, s.Action, s.Observed.Fields, action)
		}
	}
	if s := find(t, fresh, "ConfigMap", "cm-2"); s.Action == plan.NoOp && len(s.Conflicts) == 0 {
		t.Errorf("%s: a no-op without conflicts, want the edit of data.mode found", s.Ref)
	}
}

// An approval check of objects nothing wrote since the approved plan, with
// nothing of the release to prune, never asks for the release's records
// (Options.Records): they are read from journals and an earlier plan. One
// step written since asks for them, once, however many steps run at once.
func TestAConfirmedPlanReadsNoRecords(t *testing.T) {
	f := example(t, "hello")
	// A name no other test's objects carry: an undeclared object of
	// another release of the same name would be a reason to read them.
	f.input.Release.Name = "records-" + f.ns
	f.input.Objects = nil
	for i := range 8 {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"mode": "fast"}}}
		cm.SetName(fmt.Sprintf("cm-%d", i))
		cm.SetNamespace(f.ns)
		cm.SetLabels(map[string]string{object.ReleaseLabel: f.input.Release.Name})
		f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: cm})
	}
	f.input.Prune = true
	f.applyAll(t)
	approved := f.plan(t, plan.Options{})
	var asked atomic.Int32
	records := func() (map[string]bool, map[object.Ref]plan.Settled) {
		asked.Add(1)
		return nil, nil
	}
	confirm := func() { f.plan(t, plan.Options{Approved: approved, Records: records}) }
	confirm()
	if n := asked.Load(); n != 0 {
		t.Errorf("confirming a plan nothing changed asked for the records %d times, want never", n)
	}
	cms := f.sb.Clientset.CoreV1().ConfigMaps(f.ns)
	for _, name := range []string{"cm-0", "cm-5"} {
		if _, err := cms.Patch(t.Context(), name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"x":"y"}}}`), metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
			t.Fatal(err)
		}
	}
	confirm()
	if n := asked.Load(); n != 1 {
		t.Errorf("confirming a plan two of whose objects were written since asked for the records %d times, want once", n)
	}
}
