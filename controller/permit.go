package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// ReleasesFromAnnotation, on a deployer RoleBinding, lists (comma
// separated) the other namespaces whose Releases may target the
// RoleBinding's namespace. Without it only Releases in that namespace may.
const ReleasesFromAnnotation = "piceli.dev/releases-from"

// permitted says why rel may not write to its target namespace, or "" when
// it may: the namespace must hold a RoleBinding that grants the ClusterRole
// DeployerRole to the controller's ServiceAccount, and a Release from
// another namespace must be named in its ReleasesFromAnnotation. So the
// rights a Release uses are ones the namespace's owner granted, never ones
// its author has elsewhere. RoleBindings are read from the manager's cache
// (cacheOptions), so a pass costs no API request here; a binding created or
// deleted is seen as soon as its watch event arrives.
func (r *Reconciler) permitted(ctx context.Context, rel *v1alpha1.Release) (string, error) {
	ns := targetNamespace(rel)
	var rbs rbacv1.RoleBindingList
	if err := r.Client.List(ctx, &rbs, client.InNamespace(ns)); err != nil {
		return "", fmt.Errorf("list the RoleBindings of namespace %s: %w", ns, err)
	}
	sa := r.Options.Namespace + "/" + r.Options.ServiceAccount
	var unannotated string
	for _, rb := range rbs.Items {
		if !r.grantsDeployer(rb) {
			continue
		}
		if ns == rel.Namespace || slices.Contains(splitList(rb.Annotations[ReleasesFromAnnotation]), rel.Namespace) {
			return "", nil
		}
		unannotated = rb.Name
	}
	if unannotated != "" {
		return fmt.Sprintf("RoleBinding %s/%s grants the deployer role to %s, but its %s annotation does not name namespace %s, so this Release may not use it",
			ns, unannotated, sa, ReleasesFromAnnotation, rel.Namespace), nil
	}
	return fmt.Sprintf("namespace %s has no RoleBinding granting ClusterRole %s to ServiceAccount %s: the controller writes only where the namespace's owner granted it that role",
		ns, DeployerRole, sa), nil
}

// grantsDeployer says whether rb binds DeployerRole to the controller.
func (r *Reconciler) grantsDeployer(rb rbacv1.RoleBinding) bool {
	if rb.RoleRef.Kind != "ClusterRole" || rb.RoleRef.Name != DeployerRole || rb.RoleRef.APIGroup != rbacv1.GroupName {
		return false
	}
	for _, s := range rb.Subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Name == r.Options.ServiceAccount && s.Namespace == r.Options.Namespace {
			return true
		}
	}
	return false
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
