package kube

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
)

// stubCluster serves a few built-in kinds and fails discovery of broken.example.
func stubCluster(gk schema.GroupKind) (map[string]Resource, error) {
	served := map[schema.GroupKind]map[string]Resource{
		{Group: "apps", Kind: "Deployment"}: {
			"v1": {GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true},
		},
		{Kind: "ConfigMap"}: {
			"v1": {GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true},
		},
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}: {
			"v1": {GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
		},
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: {
			"v1": {GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
		},
	}
	if gk.Group == "broken.example" {
		return nil, errors.New("discovery of broken.example/v1 failed: the server is currently unable to handle the request")
	}
	return served[gk], nil
}

func TestResolveWithCRDs(t *testing.T) {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	widgetCRD := crd("example.com", "Widget", "widgets", "Namespaced", crdVersion{"v1", true}, crdVersion{"v1alpha1", false})
	tests := []struct {
		name    string
		objs    []object.Declared
		want    []Resource
		wantErr string
	}{{
		name: "built-in kinds resolve through the cluster with their scope",
		objs: declared(obj("apps/v1", "Deployment", "shop", "web"), obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader")),
		want: []Resource{
			{GVR: deployments, Namespaced: true},
			{GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
		},
	}, {
		name: "a CRD in the input makes its custom resource resolvable, in either order",
		objs: declared(obj("example.com/v1", "Widget", "shop", "w"), widgetCRD),
		want: []Resource{
			{GVR: widgets, Namespaced: true},
			{GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
		},
	}, {
		name: "a cluster-scoped CRD gives a cluster-scoped resource",
		objs: declared(crd("example.com", "Gadget", "gadgets", "Cluster", crdVersion{"v2", true}), obj("example.com/v2", "Gadget", "", "g")),
		want: []Resource{
			{GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
			{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}},
		},
	}, {
		name:    "an unknown kind names the object, its origin, and that no CRD defines it",
		objs:    declared(obj("example.com/v1", "Widget", "shop", "w")),
		wantErr: `resolve Widget/shop/w (declared by in.yaml:1): no kind "Widget" in example.com/v1: the cluster does not serve it and no CRD in the composition defines it`,
	}, {
		name:    "an unknown version of a built-in kind names the versions the cluster serves",
		objs:    declared(obj("apps/v2", "Deployment", "shop", "web")),
		wantErr: `resolve Deployment/shop/web (declared by in.yaml:1): no version "v2" of kind "Deployment" in group "apps": the cluster serves apps/v1`,
	}, {
		name:    "a version the CRD does not serve names the CRD and its served versions",
		objs:    declared(widgetCRD, obj("example.com/v1alpha1", "Widget", "shop", "w")),
		wantErr: `resolve Widget/shop/w (declared by in.yaml:2): no version "v1alpha1" of kind "Widget" in group "example.com": CustomResourceDefinition/widgets.example.com in the composition serves example.com/v1`,
	}, {
		name:    "a namespaced kind without a namespace is refused",
		objs:    declared(obj("v1", "ConfigMap", "", "settings")),
		wantErr: `resolve ConfigMap/settings (declared by in.yaml:1): ConfigMap is namespaced but metadata.namespace is empty`,
	}, {
		name:    "a cluster-scoped kind with a namespace is refused",
		objs:    declared(obj("rbac.authorization.k8s.io/v1", "ClusterRole", "shop", "reader")),
		wantErr: `resolve ClusterRole/shop/reader (declared by in.yaml:1): ClusterRole is cluster-scoped but metadata.namespace is "shop"`,
	}, {
		name:    "a cluster-scoped CRD refuses a custom resource with a namespace",
		objs:    declared(crd("example.com", "Gadget", "gadgets", "Cluster", crdVersion{"v2", true}), obj("example.com/v2", "Gadget", "shop", "g")),
		wantErr: `resolve Gadget/shop/g (declared by in.yaml:2): Gadget is cluster-scoped but metadata.namespace is "shop"`,
	}, {
		name:    "a group whose discovery failed says so",
		objs:    declared(obj("broken.example/v1", "Thing", "shop", "t")),
		wantErr: `resolve Thing/shop/t (declared by in.yaml:1): no kind "Thing" in broken.example/v1: discovery of broken.example/v1 failed: the server is currently unable to handle the request, and no CRD in the composition defines it`,
	}, {
		name: "every failing object is reported, in input order",
		objs: declared(obj("v1", "ConfigMap", "", "a"), obj("apps/v1", "Deployment", "shop", "ok"), obj("example.com/v1", "Widget", "shop", "w")),
		wantErr: `resolve ConfigMap/a (declared by in.yaml:1): ConfigMap is namespaced but metadata.namespace is empty
resolve Widget/shop/w (declared by in.yaml:3): no kind "Widget" in example.com/v1: the cluster does not serve it and no CRD in the composition defines it`,
	}, {
		name: "a CRD without plural or valid scope is refused, and defines nothing",
		objs: declared(crd("example.com", "Widget", "", "Everywhere", crdVersion{"v1", true}), obj("example.com/v1", "Widget", "shop", "w")),
		wantErr: `resolve CustomResourceDefinition/.example.com (declared by in.yaml:1): spec.names.plural is empty
spec.scope is "Everywhere", not Namespaced or Cluster
resolve Widget/shop/w (declared by in.yaml:2): no kind "Widget" in example.com/v1: the cluster does not serve it and no CRD in the composition defines it`,
	}, {
		name:    "two CRDs defining one kind are refused",
		objs:    declared(widgetCRD, crd("example.com", "Widget", "widgets", "Namespaced", crdVersion{"v1", true})),
		wantErr: `resolve CustomResourceDefinition/widgets.example.com (declared by in.yaml:2): defines kind "Widget" of group "example.com", already defined by CustomResourceDefinition/widgets.example.com`,
	}, {
		name:    "an object without apiVersion is refused",
		objs:    declared(obj("", "Widget", "shop", "w")),
		wantErr: `resolve Widget/shop/w (declared by in.yaml:1): apiVersion "" and kind "Widget" do not name a kind`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolve(tt.objs, stubCluster)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("resolve() error (-want +got):\n%s", diff)
			}
			if err != nil && !errors.Is(err, ErrUnresolved) {
				t.Errorf("resolve() error %v does not match ErrUnresolved", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("resolve() = %v, want %v\n(-want +got):\n%s", got, tt.want, diff)
			}
		})
	}
}

func TestResolveErrorUnwraps(t *testing.T) {
	_, err := resolve(declared(obj("example.com/v1", "Widget", "shop", "w")), stubCluster)
	var re *ResolveError
	if !errors.As(err, &re) {
		t.Fatalf("resolve() error %v is not a *ResolveError", err)
	}
	if got, want := fmt.Sprint(re.Ref, " ", re.Origin), "Widget/shop/w in.yaml:1"; got != want {
		t.Errorf("ResolveError names %q, want %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The mapper is asked once per kind, however many objects are of it; every
// object still gets its own answer, scope checked.
func TestResolveAsksOncePerKind(t *testing.T) {
	asked := map[schema.GroupKind]int{}
	counting := func(gk schema.GroupKind) (map[string]Resource, error) {
		asked[gk]++
		return stubCluster(gk)
	}
	var us []*unstructured.Unstructured
	for i := range 5 {
		us = append(us, obj("v1", "ConfigMap", "ns", fmt.Sprintf("cm-%d", i)))
	}
	us = append(us, obj("apps/v1", "Deployment", "ns", "web"), obj("v1", "ConfigMap", "", "no-namespace"))
	_, err := resolve(declared(us...), counting)
	if err == nil {
		t.Fatal("a namespaced ConfigMap without a namespace resolved")
	}
	want := map[schema.GroupKind]int{{Kind: "ConfigMap"}: 1, {Group: "apps", Kind: "Deployment"}: 1}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("lookups by kind (-want +got):\n%s", diff)
	}
}
