package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The cache never holds Secrets (that would need list and watch of every
// Secret in the cluster), and holds RoleBindings of every namespace even
// when the controller watches only some, since a Release may target an
// unwatched namespace.
func TestCacheHoldsNoSecretsAndEveryRoleBinding(t *testing.T) {
	for _, watched := range [][]string{nil, {"team-a"}} {
		o := cacheOptions(watched)
		for obj, by := range o.ByObject {
			switch obj.(type) {
			case *corev1.Secret:
				t.Errorf("watched %v: the cache is configured for Secrets", watched)
			case *rbacv1.RoleBinding:
				if by.Namespaces == nil || len(by.Namespaces) != 0 {
					t.Errorf("watched %v: RoleBindings cached in %v, want every namespace", watched, by.Namespaces)
				}
			}
		}
		if o.DefaultTransform == nil {
			t.Errorf("watched %v: managed fields are kept in the cache", watched)
		}
		if len(watched) > 0 && len(o.DefaultNamespaces) != len(watched) {
			t.Errorf("watched %v: default namespaces %v", watched, o.DefaultNamespaces)
		}
	}
	c := clientOptions()
	if c.Cache == nil || len(c.Cache.DisableFor) != 1 {
		t.Fatal("the cached client may read Secrets from a cache")
	}
	if _, ok := c.Cache.DisableFor[0].(*corev1.Secret); !ok {
		t.Fatalf("DisableFor is %T, want *corev1.Secret", c.Cache.DisableFor[0])
	}
}
