package plan_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A plan that declares no Namespace, after a revision that declared none,
// reads only the Namespaces it needs: its target namespace by name, and
// those carrying the release's label, among which prune finds a Namespace
// the release created and no longer declares. It never lists every
// Namespace of the cluster, which a controller planning hundreds of
// releases, each in a namespace of its own, would otherwise do for each.
func TestAPlanReadsOnlyTheNamespacesItNeeds(t *testing.T) {
	f := example(t, "hello")
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"mode": "fast"}}}
	cm.SetName("settings")
	cm.SetNamespace(f.ns)
	cm.SetLabels(map[string]string{object.ReleaseLabel: f.input.Release.Name})
	f.input.Objects = []object.Declared{{Origin: "test", Object: cm}}

	ctx := sandboxtest.Context(t, time.Minute)
	old := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:        f.ns + "-old",
		Labels:      map[string]string{object.ReleaseLabel: f.input.Release.Name},
		Annotations: map[string]string{plan.PruneAnnotation: "allow"},
	}}
	old, err := f.sb.Clientset.CoreV1().Namespaces().Create(ctx, old, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sb.Clientset.CoreV1().Namespaces().Delete(t.Context(), old.Name, metav1.DeleteOptions{}) })
	f.input.Prune, f.input.Owned = true, map[string]bool{string(old.UID): true}

	var mu sync.Mutex
	var lists []string // the query of every LIST of Namespaces
	client, err := kube.Connect(t.Context(), kube.Options{Kubeconfig: f.sb.Kubeconfig, Context: f.sb.Context, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces" {
				mu.Lock()
				lists = append(lists, r.URL.Query().Encode())
				mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Make(ctx, client, f.input, plan.Options{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if s := find(t, p, "Namespace", old.Name); s.Action != plan.Delete {
		t.Errorf("%s: %s, want the release's own Namespace pruned", s.Ref, s.Action)
	}
	if s := find(t, p, "ConfigMap", "settings"); s.Action != plan.Create {
		t.Errorf("%s: %s, want a create in the existing target namespace", s.Ref, s.Action)
	}
	if len(lists) != 2 {
		t.Errorf("the plan listed Namespaces %d times (%q), want twice: by the release's label and by the target's name", len(lists), lists)
	}
	for _, q := range lists {
		if !strings.Contains(q, "labelSelector=") && !strings.Contains(q, "fieldSelector=") {
			t.Errorf("a LIST of every Namespace (%q), want each narrowed by label or name", q)
		}
	}
}
