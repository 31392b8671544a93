package install

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// ControllerRules are the controller's own cluster-wide permissions, its
// ClusterRole: what reconciling Releases needs anywhere, and nothing that
// writes an object a Release applies or reads a Secret. What it applies it
// may write only in a namespace that binds it to DeployerRules.
func ControllerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// Watch Releases; update them (finalizers, annotations) and their
		// status.
		{APIGroups: []string{v1alpha1.Group}, Resources: []string{v1alpha1.Resource}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{v1alpha1.Group}, Resources: []string{v1alpha1.Resource + "/status"}, Verbs: []string{"get", "update", "patch"}},
		// Events on the Releases it reconciles.
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		// Which namespaces bind it to the deployer role: a Release whose
		// target namespace does not is refused before anything is read there.
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"rolebindings"}, Verbs: []string{"get", "list", "watch"}},
		// The cluster's identity, the kube-system Namespace's UID, which
		// every plan records.
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{"kube-system"}, Verbs: []string{"get"}},
		// Whether a release's target namespace exists: every plan lists
		// the Namespaces (names and labels, no content).
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}},
	}
}

// NamespaceRules are the controller's permissions in its own namespace,
// its Role: the Lease its replicas elect a leader with. Its state signing
// key reaches it as a mounted Secret file, which it copies into a private
// file of its own; it reads no Secret through the API.
func NamespaceRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}},
	}
}

// DeployerRules are the rules of the ClusterRole controller.DeployerRole:
// what the release engine needs inside a target namespace, granted there
// by a RoleBinding its owner creates (install never does). It reads every
// namespaced kind to plan, applies and deletes any namespaced object
// (Secrets and Leases among them: the release's values, its shared state
// and its Lease), and reads a Release source's credentials Secret. It
// holds neither escalate, bind nor impersonate, so it grants nothing the
// binding's namespace does not already give; a RoleBinding cannot reach
// cluster-scoped objects, so a Release's cluster-scoped objects are
// refused by the API server.
func DeployerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	}
}
