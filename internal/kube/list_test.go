package kube

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// TestDecodeListMatchesUnstructuredList: DecodeList makes of a LIST body
// exactly what client-go's own decoding does, for a built-in list (items
// without kind), a custom resource list (items with theirs), an empty one
// and one whose items are null.
func TestDecodeListMatchesUnstructuredList(t *testing.T) {
	bodies := map[string]string{
		"built-in": `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"abc"},
			"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","generation":3},"data":{"k":"v"}},
			{"metadata":{"name":"b","namespace":"ns","labels":{"x":"y"}},"data":{"n":"1.5"},"binaryData":null}]}`,
		"custom resource": `{"kind":"WidgetList","apiVersion":"piceli.test/v1","metadata":{},
			"items":[{"apiVersion":"piceli.test/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":12,"ratio":0.25,"big":12345678901234,"list":[1,"two",null,true,{"deep":[]}]}}]}`,
		"empty":      `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`,
		"null items": `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var want unstructured.UnstructuredList
			if err := want.UnmarshalJSON([]byte(body)); err != nil {
				t.Fatalf("client-go's decoding: %v", err)
			}
			got, err := DecodeList([]byte(body))
			if err != nil {
				t.Fatalf("DecodeList: %v", err)
			}
			if diff := cmp.Diff(want.Object, got.Object); diff != "" {
				t.Errorf("list fields (-client-go +DecodeList):\n%s", diff)
			}
			if diff := cmp.Diff(want.Items, got.Items); diff != "" {
				t.Errorf("items (-client-go +DecodeList):\n%s", diff)
			}
		})
	}
}

// TestDecodeListRefusesWhatIsNoList: a body that is not a list is an
// error, never an empty list that would read as "nothing exists".
func TestDecodeListRefusesWhatIsNoList(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":          `{"kind":"PodList",`,
		"null":              `null`,
		"no kind":           `{"apiVersion":"v1","items":[]}`,
		"items not array":   `{"kind":"PodList","apiVersion":"v1","items":{"a":1}}`,
		"item not object":   `{"kind":"PodList","apiVersion":"v1","items":[1]}`,
		"an array, no list": `[{"kind":"Pod"}]`,
	} {
		if l, err := DecodeList([]byte(body)); err == nil {
			t.Errorf("DecodeList(%s) = %d items, nil error; want an error", name, len(l.Items))
		}
	}
}

// TestListRequestsWhatTheDynamicClientWould: a LIST asks the collection's
// path with the options as query parameters, and a namespace that is no
// path segment is refused before any request.
func TestListRequestsWhatTheDynamicClientWould(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"RoleList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{},"items":[{"metadata":{"name":"r"}}]}`)
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL}
	base, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := withFastList(base, cfg)
	if err != nil {
		t.Fatal(err)
	}
	roles := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}
	l, err := dyn.Resource(roles).Namespace("shop").List(t.Context(), metav1.ListOptions{LabelSelector: "a=b", Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].GetKind() != "Role" || l.Items[0].GetAPIVersion() != "rbac.authorization.k8s.io/v1" {
		t.Errorf("items = %v, want one Role of rbac.authorization.k8s.io/v1", l.Items)
	}
	if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/apis/rbac.authorization.k8s.io/v1/namespaces/shop/roles?labelSelector=a%3Db&limit=7",
		"/api/v1/namespaces?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	for _, ns := range []string{"..", "a/b", "x%2F.."} {
		if _, err := dyn.Resource(roles).Namespace(ns).List(t.Context(), metav1.ListOptions{}); err == nil || !strings.Contains(err.Error(), "invalid namespace") {
			t.Errorf("LIST in namespace %q: %v, want invalid namespace", ns, err)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d requests reached the server, want %d: a refused namespace sends none", len(got), len(want))
	}
}
