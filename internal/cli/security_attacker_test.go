package cli

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
)

// attacker is an identity that may only get, create and update Secrets in
// one namespace (issue 28, hole 1): a ServiceAccount bound there to a Role
// granting just that, reached with a token from the TokenRequest API
// through a kubeconfig file of its own that points at the sandbox's
// loopback server.
type attacker struct {
	ns, name   string
	kubeconfig string
	cs         kubernetes.Interface
}

// secretsOnly are the attacker's rules.
var secretsOnly = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create", "update"}}}

// newAttacker makes the attacker in ns. Every RBAC object it makes (and
// the ClusterRoleBinding crb, should an attack create it) is removed when
// the test ends.
func newAttacker(t *testing.T, sb *sandboxtest.Sandbox, ns, crb string) *attacker {
	t.Helper()
	a := &attacker{ns: ns, name: "intruder"}
	ctx := t.Context()
	core, rbac := sb.Clientset.CoreV1(), sb.Clientset.RbacV1()
	t.Cleanup(func() { a.removeRBAC(t, sb, crb) })
	if _, err := core.ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: a.name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: a.name}, Rules: secretsOnly}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: a.name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: a.name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: a.name, Namespace: ns}},
	}
	if _, err := rbac.RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a.kubeconfig = a.writeKubeconfig(t, sb)
	a.cs = a.client(t)
	return a
}

// writeKubeconfig asks the TokenRequest API for a token of the
// ServiceAccount and writes a kubeconfig with it for the sandbox's server.
func (a *attacker) writeKubeconfig(t *testing.T, sb *sandboxtest.Sandbox) string {
	t.Helper()
	expires := int64(3600)
	tok, err := sb.Clientset.CoreV1().ServiceAccounts(a.ns).CreateToken(t.Context(), a.name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expires}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for ServiceAccount %s/%s: %v", a.ns, a.name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: sb.RESTConfig.Host, CertificateAuthorityData: sb.RESTConfig.CAData}
	cfg.AuthInfos[a.name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts[a.name] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: a.name, Namespace: a.ns}
	path := filepath.Join(t.TempDir(), "intruder.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// client connects with the attacker's kubeconfig and context.
func (a *attacker) client(t *testing.T) kubernetes.Interface {
	t.Helper()
	file, err := clientcmd.LoadFromFile(a.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*file, a.name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// can asks the API server, as the attacker, whether it may verb resource
// of group in ns ("" for cluster-wide): auth can-i, as a
// SelfSubjectAccessReview.
func (a *attacker) can(t *testing.T, verb, group, resource, ns string) bool {
	t.Helper()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: ns},
	}}
	got, err := a.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), review, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectAccessReview as %s: %v", a.name, err)
	}
	return got.Status.Allowed
}

// removeRBAC deletes the attacker's ServiceAccount, Role and RoleBinding
// and the ClusterRoleBinding crb, each if it exists.
func (a *attacker) removeRBAC(t *testing.T, sb *sandboxtest.Sandbox, crb string) {
	ctx, cancel := cleanupContext()
	defer cancel()
	core, rbac := sb.Clientset.CoreV1(), sb.Clientset.RbacV1()
	removeBinding(t, sb, crb)
	for what, err := range map[string]error{
		"RoleBinding":    rbac.RoleBindings(a.ns).Delete(ctx, a.name, metav1.DeleteOptions{}),
		"Role":           rbac.Roles(a.ns).Delete(ctx, a.name, metav1.DeleteOptions{}),
		"ServiceAccount": core.ServiceAccounts(a.ns).Delete(ctx, a.name, metav1.DeleteOptions{}),
	} {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("remove the attacker's %s: %v", what, err)
		}
	}
}

// removeBinding deletes the ClusterRoleBinding crb, if an attack made it.
func removeBinding(t *testing.T, sb *sandboxtest.Sandbox, crb string) {
	ctx, cancel := cleanupContext()
	defer cancel()
	err := sb.Clientset.RbacV1().ClusterRoleBindings().Delete(ctx, crb, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("remove ClusterRoleBinding %s: %v", crb, err)
	}
}

// cleanupContext bounds a cleanup's requests: the test's own context has
// ended when cleanups run.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// clusterUID is the sandbox's identity, the kube-system Namespace UID.
func clusterUID(t *testing.T, sb *sandboxtest.Sandbox) string {
	t.Helper()
	ns, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(ns.UID)
}

// trustedSigners are the signers the tests' specs list.
func trustedSigners(t *testing.T) []signer.Signer {
	t.Helper()
	s, err := signer.Parse(machineSigner)
	if err != nil {
		t.Fatal(err)
	}
	return []signer.Signer{s}
}

// bindingRef is the reference of the ClusterRoleBinding crb.
func bindingRef(crb string) object.Ref {
	return object.Ref{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Name: crb}
}
