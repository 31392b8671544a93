package kube

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestResolveRejectsUnknownKindsVersionsAndScopes: the sandbox refuses what it
// does not serve, and every failing object is named with its origin.
func TestResolveRejectsUnknownKindsVersionsAndScopes(t *testing.T) {
	c, _ := connectSandbox(t)
	ctx := sandboxtest.Context(t, 30*time.Second)
	objs := declared(
		obj("widgets.piceli.test/v1", "Widget", "shop", "w"),
		obj("apps/v1beta9", "Deployment", "shop", "web"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "shop", "reader"),
		obj("v1", "ConfigMap", "", "settings"),
		obj("v1", "ConfigMap", "shop", "fine"),
	)
	_, err := c.Resolve(ctx, objs)
	want := `resolve Widget/shop/w (declared by in.yaml:1): no kind "Widget" in widgets.piceli.test/v1: the cluster does not serve it and no CRD in the composition defines it
resolve Deployment/shop/web (declared by in.yaml:2): no version "v1beta9" of kind "Deployment" in group "apps": the cluster serves apps/v1
resolve ClusterRole/shop/reader (declared by in.yaml:3): ClusterRole is cluster-scoped but metadata.namespace is "shop"
resolve ConfigMap/settings (declared by in.yaml:4): ConfigMap is namespaced but metadata.namespace is empty`
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("Resolve(bad objects) error (-want +got):\n%s", diff)
	}
	if !errors.Is(err, ErrUnresolved) {
		t.Errorf("Resolve(bad objects) error does not match ErrUnresolved")
	}
}
