package kube

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestResolveCRDInTheSameInput: a custom resource the sandbox does not serve
// resolves through the CRD declared next to it, and fails without it.
func TestResolveCRDInTheSameInput(t *testing.T) {
	c, _ := connectSandbox(t)
	ctx := sandboxtest.Context(t, 30*time.Second)
	widget := obj("widgets.piceli.test/v1", "Widget", "shop", "w")
	def := crd("widgets.piceli.test", "Widget", "widgets", "Namespaced", crdVersion{"v1", true})

	got, err := c.Resolve(ctx, declared(def, widget))
	if err != nil {
		t.Fatalf("Resolve(CRD, Widget): %v", err)
	}
	want := []Resource{
		{GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
		{GVR: schema.GroupVersionResource{Group: "widgets.piceli.test", Version: "v1", Resource: "widgets"}, Namespaced: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve(CRD, Widget) (-want +got):\n%s", diff)
	}

	if _, err := c.Resolve(ctx, declared(widget)); err == nil {
		t.Errorf("Resolve(Widget) without its CRD = nil error, want unknown kind")
	}
}
