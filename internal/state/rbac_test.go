package state

import (
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// operatorRules are the state rules of the operator Role that
// docs/state.md documents: Secrets in the state namespace, the Lease in
// the release's namespace.
var operatorRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "create", "update", "delete"}},
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update", "delete"}},
}

// as returns a client acting as user, bound in ns to a Role of rules.
func as(t *testing.T, sb *sandboxtest.Sandbox, ns, user string, rules []rbacv1.PolicyRule) kubernetes.Interface {
	t.Helper()
	rbac := sb.Clientset.RbacV1()
	if _, err := rbac.Roles(ns).Create(t.Context(), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}
	if _, err := rbac.RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(sb.RESTConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, cs, ns, user, rules)
	return cs
}

// waitAllowed waits until the API server's authorizer, which learns of
// new Roles and RoleBindings through its informers, allows user every
// verb of rules in ns: a request sent at once can be refused on a loaded
// machine, which is no finding about the Role.
func waitAllowed(t *testing.T, cs kubernetes.Interface, ns, user string, rules []rbacv1.PolicyRule) {
	t.Helper()
	for _, r := range rules {
		attrs := &authorizationv1.ResourceAttributes{Namespace: ns, Group: r.APIGroups[0], Resource: r.Resources[0], Verb: r.Verbs[0]}
		deadline := time.Now().Add(30 * time.Second)
		for {
			review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
			}, metav1.CreateOptions{})
			if err == nil && review.Status.Allowed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is still not allowed to %s %s in %s 30s after its RoleBinding: %v", user, attrs.Verb, attrs.Resource, ns, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// The documented operator Role is enough to push and pull the state; a
// Role without "create" on Secrets gets an error naming that permission.
func TestOperatorRoleIsEnoughAndAMissingPermissionIsNamed(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	operator := as(t, sb, ns, "operator", operatorRules)
	dir := t.TempDir()
	write(t, dir, "history/000001.json", "first")
	_, fence := held(t, operator, ns, "operator")
	if _, err := signed(t, &Cluster{Client: operator, Namespace: ns, Release: "shop", Dir: dir}).Push(t.Context(), fence); err != nil {
		t.Fatalf("Push as the documented operator: %v", err)
	}
	if _, err := signed(t, &Cluster{Client: operator, Namespace: ns, Release: "shop", Dir: t.TempDir()}).Pull(t.Context()); err != nil {
		t.Fatalf("Pull as the documented operator: %v", err)
	}

	readOnly := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}},
		operatorRules[1],
	}
	other := as(t, sb, ns, "reader", readOnly)
	dir2 := t.TempDir()
	write(t, dir2, "history/000001.json", "something else")
	_, fence2 := heldFor(t, other, ns, "other", "reader")
	_, err := signed(t, &Cluster{Client: other, Namespace: ns, Release: "other", Dir: dir2}).Push(t.Context(), fence2)
	want := `needs "create" on secrets in namespace ` + ns
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Push without create on secrets = %v, want an error saying it %s", err, want)
	}
}
