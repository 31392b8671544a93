package observe

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func fixtureArchive() *Archive {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	obj := func(kind, apiVersion, resource, ns, name string) archive.Object {
		return archive.Object{Ref: object.Ref{Kind: kind, Namespace: ns, Name: name, Group: groupOf(apiVersion)}, APIVersion: apiVersion,
			Resource: resource, Action: "create", Declared: true, Digest: "hmac-sha256:" + name, Outcome: "applied"}
	}
	return &Archive{Schema: archive.Schema, Run: "20261201-120000-abcdef", Source: "apply", Release: "shop",
		Target:     plan.Target{Server: "https://127.0.0.1:6443", Context: "kwok-piceli", Namespace: "shop", ClusterUID: "uid-1"},
		Namespaces: []string{"shop"}, Plan: "0123456789abcdef", Revision: 1, Status: "finished", Started: at, Ended: at.Add(time.Minute),
		Objects: []archive.Object{
			obj("Namespace", "v1", "namespaces", "", "shop"),
			obj("ConfigMap", "v1", "configmaps", "shop", "config"),
			obj("Secret", "v1", "secrets", "shop", "db"),
			obj("Deployment", "apps/v1", "deployments", "shop", "web"),
			obj("Deployment", "apps/v1", "deployments", "shop", "api"),
			obj("Role", "rbac.authorization.k8s.io/v1", "roles", "shop", "reader"),
		}}
}

func groupOf(apiVersion string) string {
	if g, _, ok := cut(apiVersion); ok {
		return g
	}
	return ""
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}

func live(apiVersion, kind, ns, name string, extra map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns, "generation": int64(1)}}}
	for k, v := range extra {
		u.Object[k] = v
	}
	return u
}

func available(replicas int64) map[string]any {
	return map[string]any{
		"spec": map[string]any{"replicas": replicas},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": replicas, "updatedReplicas": replicas,
			"readyReplicas": replicas, "availableReplicas": replicas,
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
	}
}

// The status document of a session whose web Deployment is ready, whose
// api Deployment is gone, with a ConfigMap nobody declared beside the
// control plane's own, Roles unreadable and the cluster the archive's.
func TestReconcileGolden(t *testing.T) {
	a := fixtureArchive()
	k := func(g, v, r, kind string) Kind { return Kind{Group: g, Version: v, Resource: r, Kind: kind} }
	owned := live("v1", "ConfigMap", "shop", "made-by-a-controller", nil)
	owned.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u"}})
	listings := []Listing{
		{Kind: k("", "v1", "namespaces", "Namespace"), Items: []*unstructured.Unstructured{live("v1", "Namespace", "", "shop", nil), live("v1", "Namespace", "", "other", nil)}},
		{Kind: k("", "v1", "configmaps", "ConfigMap"), Namespace: "shop", Items: []*unstructured.Unstructured{
			live("v1", "ConfigMap", "shop", "config", nil), live("v1", "ConfigMap", "shop", "extra", nil),
			live("v1", "ConfigMap", "shop", "kube-root-ca.crt", nil), owned}},
		{Kind: k("", "v1", "secrets", "Secret"), Namespace: "shop", Items: []*unstructured.Unstructured{live("v1", "Secret", "shop", "db", nil)}},
		{Kind: k("apps", "v1", "deployments", "Deployment"), Namespace: "shop", Items: []*unstructured.Unstructured{live("apps/v1", "Deployment", "shop", "web", available(2))}},
		{Kind: k("rbac.authorization.k8s.io", "v1", "roles", "Role"), Namespace: "shop", Forbidden: true},
	}
	rep := Reconcile(a, ClusterInfo{Server: "https://127.0.0.1:6443", Context: "kwok-piceli", ClusterUID: "uid-1", Same: true}, listings)
	got, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "status.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)+"\n"); d != "" {
		t.Errorf("Reconcile JSON differs from %s (-want +got):\n%s", golden, d)
	}
	if rep.Healthy() {
		t.Errorf("Healthy() = true for a report with a missing object")
	}
}

func TestQueriesListEachKindOncePerNamespace(t *testing.T) {
	a := fixtureArchive()
	a.Namespaces = []string{"shop", "shop-jobs"}
	qs := queries(a)
	// Namespace once (cluster scope); ConfigMap, Secret, Deployment, Role
	// once in each of two namespaces.
	if len(qs) != 1+4*2 {
		t.Fatalf("queries = %d LISTs, want 9: %+v", len(qs), qs)
	}
}

func TestHealthyNeedsTheSameClusterAndReadyObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  Report
		want bool
	}{
		{"all present and current", Report{Cluster: ClusterInfo{Same: true}, Objects: []ObjectStatus{{State: Present, Readiness: "current"}, {State: Undeclared}}}, true},
		{"another cluster", Report{Cluster: ClusterInfo{Same: false}, Objects: []ObjectStatus{{State: Present, Readiness: "current"}}}, false},
		{"present, in progress", Report{Cluster: ClusterInfo{Same: true}, Objects: []ObjectStatus{{State: Present, Readiness: "in-progress"}}}, false},
		{"unknown", Report{Cluster: ClusterInfo{Same: true}, Objects: []ObjectStatus{{State: Unknown}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rep.Healthy(); got != tc.want {
				t.Errorf("Healthy() = %v, want %v", got, tc.want)
			}
		})
	}
}
