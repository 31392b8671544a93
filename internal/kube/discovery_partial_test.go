package kube

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// fakeAPIServer serves legacy discovery for apps/v1 and a group,
// broken.example/v1, whose discovery answers 503 as an unavailable
// aggregated API does.
func fakeAPIServer(t *testing.T) *httptest.Server {
	t.Helper()
	docs := map[string]any{
		"/api": metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}},
		"/apis": metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{
			group("apps", "v1"), group("broken.example", "v1"),
		}},
		"/apis/apps/v1": metav1.APIResourceList{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: []string{"get", "list", "create"}},
		}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func group(name, version string) metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + version, Version: version}
	return metav1.APIGroup{Name: name, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}

func TestResolveSurvivesPartialDiscovery(t *testing.T) {
	c, err := newClient(&rest.Config{Host: fakeAPIServer(t).URL}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	web := declared(obj("apps/v1", "Deployment", "shop", "web"))
	got, err := c.Resolve(t.Context(), web)
	if err != nil {
		t.Fatalf("Resolve(Deployment) with one group failing discovery: %v", err)
	}
	want := []Resource{{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve(Deployment) = %v, want %v\n(-want +got):\n%s", got, want, diff)
	}

	_, err = c.Resolve(t.Context(), declared(obj("broken.example/v1", "Thing", "shop", "t")))
	wantPrefix := `resolve Thing/shop/t (declared by in.yaml:1): no kind "Thing" in broken.example/v1: discovery of broken.example/v1 failed: `
	if !errors.Is(err, ErrUnresolved) || !strings.HasPrefix(errString(err), wantPrefix) {
		t.Errorf("Resolve(Thing) error = %v, want an ErrUnresolved starting %q", err, wantPrefix)
	}
}
