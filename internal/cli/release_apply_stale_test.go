package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// An approved plan that the cluster no longer matches is refused before
// anything is written: exit 2 naming the object, no field of the
// release's manager on any object, no resourceVersion moved, no Lease
// taken and no run started.
func TestApplyRefusesStalePlanBeforeAnyWrite(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	tests := []struct {
		name   string
		before map[string]string     // ConfigMaps (name → mode) that exist when planning
		change func(ns string) error // what happens between plan and apply
		want   string                // the ConfigMap the refusal names
	}{
		{
			name:   "a field the plan sets changed",
			before: map[string]string{"settings": "fast"}, // the same value: the plan adopts it
			change: func(ns string) error {
				cms := sb.Clientset.CoreV1().ConfigMaps(ns)
				cm, err := cms.Get(t.Context(), "settings", metav1.GetOptions{})
				if err != nil {
					return err
				}
				cm.Data["mode"] = "medium"
				_, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{FieldManager: "someone-else"})
				return err
			},
			want: "settings",
		},
		{
			name:   "an object created where the plan saw none",
			before: map[string]string{},
			change: func(ns string) error { return createConfigMap(t, sb, ns, "extra", "other") },
			want:   "extra",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRelease(t, sb, "", map[string]string{
				"settings.yaml": configMapYAML("settings", "mode", "fast"),
				"extra.yaml":    configMapYAML("extra", "mode", "fast"),
			})
			for name, mode := range tt.before {
				if err := createConfigMap(t, sb, r.ns, name, mode); err != nil {
					t.Fatal(err)
				}
			}
			p := r.plan(t)
			if err := tt.change(r.ns); err != nil {
				t.Fatal(err)
			}
			before := resourceVersions(t, sb, r.ns)
			leases := watchLeases(t, sb, r.ns)

			res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
			if res.code != ExitRefused || !strings.Contains(res.stderr, "stale") || !strings.Contains(res.stderr, "ConfigMap/"+r.ns+"/"+tt.want) {
				t.Fatalf("apply of a stale plan: exit %d, stderr:\n%s\nwant exit 2 naming ConfigMap/%s/%s", res.code, res.stderr, r.ns, tt.want)
			}
			if after := resourceVersions(t, sb, r.ns); !equalMaps(before, after) {
				t.Errorf("resourceVersions moved during a refused apply: before %v, after %v", before, after)
			}
			assertNotManaged(t, sb, r.ns, fieldManager)
			if ev := leases(); len(ev) > 0 {
				t.Errorf("a refused apply wrote Leases in the namespace: %v", ev)
			}
			if _, err := os.Stat(apply.RunDir(r.stateDir, "")); !os.IsNotExist(err) {
				t.Errorf("a refused apply created the runs directory (stat: %v)", err)
			}
		})
	}
}

func createConfigMap(t *testing.T, sb *sandboxtest.Sandbox, ns, name, mode string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"mode": mode}}
	_, err := sb.Clientset.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{FieldManager: "someone-else"})
	return err
}

// resourceVersions maps each ConfigMap of ns, and ns itself, to its
// resourceVersion. kube-root-ca.crt is left out: the controller-manager
// publishes it into every new namespace on its own schedule, so it may
// appear between two snapshots; assertNotManaged still covers it.
func resourceVersions(t *testing.T, sb *sandboxtest.Sandbox, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	n, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["Namespace/"+ns] = n.ResourceVersion
	list, err := sb.Clientset.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range list.Items {
		if cm.Name != "kube-root-ca.crt" {
			out["ConfigMap/"+cm.Name] = cm.ResourceVersion
		}
	}
	return out
}

// assertNotManaged fails when manager owns a field of the namespace or of
// any ConfigMap in it.
func assertNotManaged(t *testing.T, sb *sandboxtest.Sandbox, ns, manager string) {
	t.Helper()
	n, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := []metav1.ObjectMeta{n.ObjectMeta}
	list, err := sb.Clientset.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range list.Items {
		objs = append(objs, cm.ObjectMeta)
	}
	for _, o := range objs {
		for _, m := range o.ManagedFields {
			if m.Manager == manager {
				t.Errorf("%s has fields of manager %s: the refused apply wrote it", o.Name, manager)
			}
		}
	}
}

// watchLeases watches the Leases of ns from now; the returned function
// stops and lists the events seen.
func watchLeases(t *testing.T, sb *sandboxtest.Sandbox, ns string) func() []string {
	t.Helper()
	leases := sb.Clientset.CoordinationV1().Leases(ns)
	list, err := leases.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := leases.Watch(t.Context(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	return func() []string {
		defer w.Stop()
		var seen []string
		for {
			select {
			case ev := <-w.ResultChan():
				if ev.Type != watch.Bookmark {
					seen = append(seen, string(ev.Type))
				}
			case <-time.After(time.Second):
				return seen
			}
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
