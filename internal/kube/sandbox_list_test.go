package kube

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestListAnswersAsTheDynamicClient: the client's LISTs, decoded in one
// pass, give what client-go's dynamic client gives for the same request
// (pages, selectors and cluster-scoped lists included), and its errors keep
// their API status.
func TestListAnswersAsTheDynamicClient(t *testing.T) {
	c, sb := connectSandbox(t)
	ctx := sandboxtest.Context(t, 60*time.Second)
	ns := sb.Namespace(t)
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for i := range 5 {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"i": fmt.Sprint(i)}}}
		cm.SetName(fmt.Sprintf("cm-%d", i))
		cm.SetLabels(map[string]string{"odd": fmt.Sprint(i%2 == 1)})
		if _, err := c.Dynamic.Resource(cms).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Dynamic.(listing); !ok {
		t.Fatalf("Client.Dynamic is %T, not the client that decodes LISTs in one pass", c.Dynamic)
	}
	plain, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		gvr  schema.GroupVersionResource
		ns   string
		opts metav1.ListOptions
	}{
		{"a namespace's ConfigMaps", cms, ns, metav1.ListOptions{}},
		{"a label selector", cms, ns, metav1.ListOptions{LabelSelector: "odd=true"}},
		{"a page of two", cms, ns, metav1.ListOptions{Limit: 2}},
		{"a field selector", cms, ns, metav1.ListOptions{FieldSelector: "metadata.name=cm-3"}},
		{"cluster-scoped Namespaces", schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", metav1.ListOptions{FieldSelector: "metadata.name=" + ns}},
		{"a grouped resource", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, "kube-system", metav1.ListOptions{}},
	}
	for _, tc := range cases {
		want, err := plain.Resource(tc.gvr).Namespace(tc.ns).List(ctx, tc.opts)
		if err != nil {
			t.Fatalf("%s: dynamic client: %v", tc.name, err)
		}
		var got *unstructured.UnstructuredList
		if tc.ns == "" {
			got, err = c.Dynamic.Resource(tc.gvr).List(ctx, tc.opts)
		} else {
			got, err = c.Dynamic.Resource(tc.gvr).Namespace(tc.ns).List(ctx, tc.opts)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.name == "a page of two" {
			// Continue tokens differ between two reads; the page must not.
			unstructured.RemoveNestedField(want.Object, "metadata", "continue")
			unstructured.RemoveNestedField(got.Object, "metadata", "continue")
		}
		unstructured.RemoveNestedField(want.Object, "metadata", "resourceVersion")
		unstructured.RemoveNestedField(got.Object, "metadata", "resourceVersion")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-dynamic client +Client.Dynamic):\n%s", tc.name, diff)
		}
	}
	missing := schema.GroupVersionResource{Group: "nothing.piceli.test", Version: "v1", Resource: "widgets"}
	if _, err := c.Dynamic.Resource(missing).Namespace(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("LIST of a resource the server does not serve: %v, want NotFound", err)
	}
}
