package app

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceAccount is a handle to a declared ServiceAccount; run a workload
// as it with RunAs and grant it a Role with RoleBinding.
type ServiceAccount struct {
	name string
	bad  string // what is wrong with a ServiceAccountRef's name
}

// Name returns the ServiceAccount's name.
func (s *ServiceAccount) Name() string { return s.name }

// Kind returns "ServiceAccount".
func (s *ServiceAccount) Kind() string { return "ServiceAccount" }

// serviceAccountSpec is what ServiceAccountOptions set.
type serviceAccountSpec struct {
	common
	automount *bool
}

// ServiceAccount declares a ServiceAccount; AutomountToken and the options
// every builder takes (Labels, Annotation, Edit, ...) apply.
func (a *App) ServiceAccount(name string, opts ...ServiceAccountOption) *ServiceAccount {
	var spec serviceAccountSpec
	for _, o := range opts {
		if o != nil {
			o.applyServiceAccount(&spec)
		}
	}
	a.reportName("ServiceAccount", name, dnsSubdomain)
	if a.claim("ServiceAccount", name) {
		a.add(name, &corev1.ServiceAccount{
			TypeMeta:                     metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta:                   meta(name, a.labelsOf(name, &spec.common), spec.annotations),
			AutomountServiceAccountToken: spec.automount,
		}, &spec.common)
	}
	return &ServiceAccount{name: name}
}

// Role is a handle to a declared Role; grant it with RoleBinding.
type Role struct {
	name string
}

// Name returns the Role's name.
func (r *Role) Name() string { return r.name }

// Kind returns "Role".
func (r *Role) Kind() string { return "Role" }

// Permission is one rule of a Role; make it with Permit.
type Permission struct {
	rule rbacv1.PolicyRule
}

// Permit allows verbs ("get", "list", "watch", ...) on resource
// ("configmaps", "deployments", ...) of API group group ("" is the core
// group, "apps" holds Deployments) in the release's namespace.
func Permit(group, resource string, verbs ...string) Permission {
	return Permission{rule: rbacv1.PolicyRule{
		APIGroups: []string{group},
		Resources: []string{resource},
		Verbs:     append([]string(nil), verbs...),
	}}
}

// Role declares a namespaced Role holding permissions. A Role needs at least
// one Permission, each with a resource and at least one verb.
func (a *App) Role(name string, permissions ...Permission) *Role {
	a.reportName("Role", name, dnsSubdomain)
	var rules []rbacv1.PolicyRule
	for _, p := range permissions {
		if p.rule.Resources[0] == "" || len(p.rule.Verbs) == 0 {
			a.report("Role", name, []string{"permission needs a resource and at least one verb"})
		}
		rules = append(rules, p.rule)
	}
	if len(rules) == 0 {
		a.report("Role", name, []string{"no permissions (use app.Permit)"})
	}
	if a.claim("Role", name) {
		a.add(name, &rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: meta(name, a.labels(name), nil),
			Rules:      rules,
		}, nil)
	}
	return &Role{name: name}
}

// RoleBinding declares a RoleBinding, named after the role, granting it to
// service accounts of the release's namespace.
func (a *App) RoleBinding(role *Role, accounts ...*ServiceAccount) {
	if role == nil {
		a.errorf("role binding: role is nil")
		return
	}
	if len(accounts) == 0 {
		a.report("RoleBinding", role.name, []string{"no service accounts to bind"})
	}
	var subjects []rbacv1.Subject
	for _, sa := range accounts {
		if sa != nil {
			subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa.name})
		}
	}
	if !a.claim("RoleBinding", role.name) {
		return
	}
	a.add(role.name, &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: meta(role.name, a.labels(role.name), nil),
		Subjects:   subjects,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.name},
	}, nil)
}
