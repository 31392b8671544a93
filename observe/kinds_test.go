package observe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/internal/object"
)

func TestCommonServedPicksListableCommonKinds(t *testing.T) {
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "secrets", Kind: "Secret", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}},
			{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "list"}},
		}},
		{GroupVersion: "networking.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "ingresses", Kind: "Ingress", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "ingresses/status", Kind: "Ingress", Namespaced: true, Verbs: []string{"get", "list"}},
		}},
		{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{
			{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true, Verbs: []string{"get"}},
		}},
	}
	want := []Kind{
		{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		{Version: "v1", Resource: "pods", Kind: "Pod"},
		{Version: "v1", Resource: "secrets", Kind: "Secret"},
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Kind: "Ingress"},
	}
	if diff := cmp.Diff(want, commonServed(lists)); diff != "" {
		t.Errorf("commonServed() (-want +got), subresources, Events and kinds without list left out:\n%s", diff)
	}
}

func TestUndeclaredQueriesListTheCommonKindsTheArchiveLacks(t *testing.T) {
	a := fixtureArchive() // declares ConfigMap, Secret, Deployment, Role, Namespace
	a.Namespaces = []string{"shop", "shop-jobs"}
	served := []Kind{
		{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		{Version: "v1", Resource: "services", Kind: "Service"},
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Kind: "Ingress"},
	}
	var got []string
	for _, l := range undeclaredQueries(a, served) {
		if !l.MetadataOnly {
			t.Errorf("the LIST of %s in %s reads whole objects; want metadata only", l.Kind.Kind, l.Namespace)
		}
		got = append(got, l.Kind.Kind+" in "+l.Namespace)
	}
	want := []string{"Service in shop", "Service in shop-jobs", "Ingress in shop", "Ingress in shop-jobs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("undeclaredQueries() (-want +got):\n%s", diff)
	}
}

// A namespace whose archive declares a StatefulSet and nothing else holds
// a ConfigMap and a Secret added by hand, the set's own claims and a claim
// someone else made: Reconcile reports the three added objects undeclared,
// by name, and not the claims the set's controller made.
func TestReconcileReportsUndeclaredObjectsOfKindsTheArchiveLacks(t *testing.T) {
	a := fixtureArchive()
	a.Objects = []archive.Object{{Ref: object.Ref{Group: "apps", Kind: "StatefulSet", Namespace: "shop", Name: "db"},
		APIVersion: "apps/v1", Resource: "statefulsets", Action: "create", Declared: true, Outcome: "applied"}}
	k := func(g, v, r, kind string) Kind { return Kind{Group: g, Version: v, Resource: r, Kind: kind} }
	sts := live("apps/v1", "StatefulSet", "shop", "db", map[string]any{"spec": map[string]any{
		"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"}}}}})
	meta := func(kind, name string) *unstructured.Unstructured { return live("v1", kind, "shop", name, nil) }
	listings := []Listing{
		{Kind: k("apps", "v1", "statefulsets", "StatefulSet"), Namespace: "shop", Items: []*unstructured.Unstructured{sts}},
		{Kind: k("", "v1", "configmaps", "ConfigMap"), Namespace: "shop", MetadataOnly: true, Items: []*unstructured.Unstructured{meta("ConfigMap", "added-by-hand"), meta("ConfigMap", "kube-root-ca.crt")}},
		{Kind: k("", "v1", "secrets", "Secret"), Namespace: "shop", MetadataOnly: true, Items: []*unstructured.Unstructured{meta("Secret", "token-by-hand")}},
		{Kind: k("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim"), Namespace: "shop", MetadataOnly: true, Items: []*unstructured.Unstructured{
			meta("PersistentVolumeClaim", "data-db-0"), meta("PersistentVolumeClaim", "data-db-12"), meta("PersistentVolumeClaim", "data-db-extra")}},
	}
	rep := Reconcile(a, ClusterInfo{Same: true}, listings)
	var got []string
	for _, o := range rep.Objects {
		got = append(got, o.Object+" "+string(o.State))
	}
	want := []string{
		"ConfigMap/shop/added-by-hand undeclared",
		"PersistentVolumeClaim/shop/data-db-extra undeclared",
		"Secret/shop/token-by-hand undeclared",
		"StatefulSet/shop/db present",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reconcile() objects (-want +got):\n%s", diff)
	}
}
