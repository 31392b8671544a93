package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// labelled is an object of kind in ns labelled with the release, as an
// earlier revision applied it.
func (f *fixture) labelled(kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "data": map[string]any{"k": "dg=="}}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(map[string]string{object.ReleaseLabel: f.input.Release.Name})
	return u
}

// uid reads the UID of a live core object.
func (f *fixture) uid(t *testing.T, resource string, u *unstructured.Unstructured) string {
	t.Helper()
	live, err := f.sb.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: resource}).Namespace(u.GetNamespace()).Get(t.Context(), u.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(live.GetUID())
}

// revisionObject is u as a revision records it.
func revisionObject(u *unstructured.Unstructured, resource string) history.Object {
	return history.Object{Ref: object.RefOf(u), APIVersion: u.GetAPIVersion(), Resource: resource, Manifest: u.Object}
}

// TestPruneWeighsEveryUndeclaredObject applies a release and, beside it,
// objects of kinds its composition no longer has: a ConfigMap and a Secret
// of the previous revision, and a ConfigMap of it in a second namespace.
// Every plan must consider all of them, delete only what prune may, and
// list the rest as kept with the reason.
func TestPruneWeighsEveryUndeclaredObject(t *testing.T) {
	f := example(t, "hello")
	far := f.sb.Namespace(t)
	cm, sec, farCM := f.labelled("ConfigMap", f.ns, "old"), f.labelled("Secret", f.ns, "old-secret"), f.labelled("ConfigMap", far, "far")
	f.applyAll(t)
	f.apply(t, cm, sec, farCM)
	uids := map[*unstructured.Unstructured]string{cm: f.uid(t, "configmaps", cm), sec: f.uid(t, "secrets", sec), farCM: f.uid(t, "configmaps", farCM)}
	f.input.Previous = []history.Object{revisionObject(cm, "configmaps"), revisionObject(sec, "secrets"), revisionObject(farCM, "configmaps")}
	all := map[string]bool{uids[cm]: true, uids[sec]: true, uids[farCM]: true}

	kept := func(u *unstructured.Unstructured, why plan.KeepReason) plan.Kept {
		return plan.Kept{Ref: object.RefOf(u), UID: uids[u], Reason: why}
	}
	tests := []struct {
		name       string
		prune      bool
		owned      map[string]bool
		namespaces []string
		deleted    []*unstructured.Unstructured
		kept       []plan.Kept
	}{
		{"prune deletes the last object of a kind and keeps protected ones", true, all, nil,
			[]*unstructured.Unstructured{cm}, []plan.Kept{kept(sec, plan.KeepProtected), kept(farCM, plan.KeepNamespaceNotAllowed)}},
		{"prune keeps an object whose UID the release never created", true, map[string]bool{uids[sec]: true}, []string{far},
			nil, []plan.Kept{kept(cm, plan.KeepNotCreated), kept(sec, plan.KeepProtected), kept(farCM, plan.KeepNotCreated)}},
		{"prune deletes in a namespace still allowed", true, all, []string{far},
			[]*unstructured.Unstructured{cm, farCM}, []plan.Kept{kept(sec, plan.KeepProtected)}},
		{"without prune everything is kept", false, all, []string{far},
			nil, []plan.Kept{kept(cm, plan.KeepPruneOff), kept(sec, plan.KeepPruneOff), kept(farCM, plan.KeepPruneOff)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := f.input
			in.Prune, in.Owned, in.Namespaces = tt.prune, tt.owned, tt.namespaces
			p := (&fixture{sb: f.sb, client: f.client, ns: f.ns, input: in}).plan(t, plan.Options{})
			var deleted []object.Ref
			for _, s := range p.Steps {
				if s.Action == plan.Delete {
					deleted = append(deleted, s.Ref)
				}
			}
			var want []object.Ref
			for _, u := range tt.deleted {
				want = append(want, object.RefOf(u))
			}
			sortRefs(deleted)
			sortRefs(want)
			if diff := cmp.Diff(want, deleted); diff != "" {
				t.Errorf("deleted objects (-want +got):\n%s", diff)
			}
			sortKept(p.Kept)
			sortKept(tt.kept)
			if diff := cmp.Diff(tt.kept, p.Kept); diff != "" {
				t.Errorf("plan.Kept (-want +got):\n%s", diff)
			}
		})
	}
}

func sortRefs(refs []object.Ref) {
	slices.SortFunc(refs, func(a, b object.Ref) int { return strings.Compare(a.String(), b.String()) })
}

func sortKept(k []plan.Kept) {
	slices.SortFunc(k, func(a, b plan.Kept) int { return strings.Compare(a.Ref.String(), b.Ref.String()) })
}

// TestPruneLeavesANamesakeReleaseAlone applies, beside the release, what a
// release of the same name in another namespace would have: its Namespace
// and a ConfigMap there, both labelled with the shared release name. This
// release's records name neither, so its plans neither delete nor list
// them; once its records name the ConfigMap (an earlier revision had it),
// they weigh it again.
func TestPruneLeavesANamesakeReleaseAlone(t *testing.T) {
	f := example(t, "hello")
	other := f.sb.Namespace(t)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
	ns.SetName(other)
	ns.SetLabels(map[string]string{object.ReleaseLabel: f.input.Release.Name})
	cm := f.labelled("ConfigMap", other, "theirs")
	f.applyAll(t)
	f.apply(t, ns, cm)
	cmUID := f.uid(t, "configmaps", cm)

	tests := []struct {
		name     string
		previous []history.Object
		kept     []plan.Kept
	}{
		{"objects only a namesake release declared are not this release's", nil, nil},
		{"an object of this release's previous revision is weighed", []history.Object{revisionObject(cm, "configmaps")},
			[]plan.Kept{{Ref: object.RefOf(cm), UID: cmUID, Reason: plan.KeepNotCreated}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := f.input
			in.Prune, in.Owned, in.Namespaces, in.Previous = true, map[string]bool{}, []string{other}, tt.previous
			p := (&fixture{sb: f.sb, client: f.client, ns: f.ns, input: in}).plan(t, plan.Options{})
			for _, s := range p.Steps {
				if s.Action == plan.Delete {
					t.Errorf("plan deletes %s, an object of another release", s.Ref)
				}
			}
			if diff := cmp.Diff(tt.kept, p.Kept); diff != "" {
				t.Errorf("plan.Kept (-want +got):\n%s", diff)
			}
		})
	}
}
