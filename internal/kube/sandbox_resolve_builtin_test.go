package kube

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestResolveBuiltinKinds: the kinds apps declare resolve through the
// sandbox's discovery with their resource and scope.
func TestResolveBuiltinKinds(t *testing.T) {
	c, _ := connectSandbox(t)
	ctx := sandboxtest.Context(t, 30*time.Second)
	objs := declared(
		obj("apps/v1", "Deployment", "shop", "web"),
		obj("v1", "Service", "shop", "web"),
		obj("v1", "ConfigMap", "shop", "settings"),
		obj("networking.k8s.io/v1", "NetworkPolicy", "shop", "default-deny"),
		obj("autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web"),
		obj("networking.k8s.io/v1", "Ingress", "shop", "web"),
		obj("v1", "Namespace", "", "shop"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader"),
	)
	got, err := c.Resolve(ctx, objs)
	if err != nil {
		t.Fatalf("Resolve(built-in kinds): %v", err)
	}
	gvr := func(group, version, resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
	}
	want := []Resource{
		{GVR: gvr("apps", "v1", "deployments"), Namespaced: true},
		{GVR: gvr("", "v1", "services"), Namespaced: true},
		{GVR: gvr("", "v1", "configmaps"), Namespaced: true},
		{GVR: gvr("networking.k8s.io", "v1", "networkpolicies"), Namespaced: true},
		{GVR: gvr("autoscaling", "v2", "horizontalpodautoscalers"), Namespaced: true},
		{GVR: gvr("networking.k8s.io", "v1", "ingresses"), Namespaced: true},
		{GVR: gvr("", "v1", "namespaces")},
		{GVR: gvr("rbac.authorization.k8s.io", "v1", "clusterroles")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve(built-in kinds) (-want +got):\n%s", diff)
	}
}
