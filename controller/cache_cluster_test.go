package controller_test

import (
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// RoleBindings come from the controller's cache, which holds every
// namespace's: a Release in a watched namespace may target one the
// controller does not watch, whose binding decides; deleting that binding
// is seen by the next pass, with no restart.
func TestCachedRoleBindingsReachUnwatchedTargetsAndFollowRevocation(t *testing.T) {
	h := startController(t, 0) // watches h.ns only
	target := h.sb.Namespace(t)
	h.grantDeployer(t, target, map[string]string{controller.ReleasesFromAnnotation: h.ns})
	h.src.set(configMaps("one"))
	h.createRelease(t, h.ns, "app", v1alpha1.ReleaseSpec{TargetNamespace: target, Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}}})
	h.waitFor(t, h.ns, "app", "the Release targeting an unwatched namespace is Ready", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady
	})
	if _, ok := h.configMap(t, target, "cm-0"); !ok {
		t.Fatalf("cm-0 was not written in %s", target)
	}

	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "piceli-deployer", Namespace: target}}
	if err := h.client.Delete(sandboxtest.Context(t, 30*time.Second), rb); err != nil {
		t.Fatal(err)
	}
	rel := h.waitFor(t, h.ns, "app", "the Release is stalled once the binding is gone", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateStalled
	})
	if !strings.Contains(stalledMessage(rel), "no RoleBinding granting ClusterRole piceli-deployer") {
		t.Fatalf("stalled for %q", stalledMessage(rel))
	}
}
