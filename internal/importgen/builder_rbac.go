package importgen

import (
	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// serviceAccount recognises a.ServiceAccount(name).
func (g *gen) serviceAccount(obj runtime.Object) (built, bool) {
	sa := obj.(*corev1.ServiceAccount).DeepCopy()
	name := sa.Name
	if _, ok := g.takeMeta(&sa.ObjectMeta, name, name, false); !ok || !rest(sa) || !validSubdomain(name) {
		return built{}, false
	}
	h := &handle{kind: "ServiceAccount", name: name}
	return built{handle: h, code: call("ServiceAccount", func() []jen.Code { return []jen.Code{jen.Lit(name)} })}, true
}

// role recognises a.Role(name, app.Permit(...)...).
func (g *gen) role(obj runtime.Object) (built, bool) {
	r := obj.(*rbacv1.Role).DeepCopy()
	name := r.Name
	if _, ok := g.takeMeta(&r.ObjectMeta, name, name, false); !ok || len(r.Rules) == 0 || !validSubdomain(name) {
		return built{}, false
	}
	rules := r.Rules
	for _, rule := range rules {
		if !permission(rule) {
			return built{}, false
		}
	}
	r.Rules = nil
	if !rest(r) {
		return built{}, false
	}
	h := &handle{kind: "Role", name: name}
	return built{handle: h, code: call("Role", func() []jen.Code {
		args := []jen.Code{jen.Lit(name)}
		for _, rule := range rules {
			p := []jen.Code{jen.Lit(rule.APIGroups[0]), jen.Lit(rule.Resources[0])}
			for _, v := range rule.Verbs {
				p = append(p, jen.Lit(v))
			}
			args = append(args, appCall("Permit", p...))
		}
		return args
	})}, true
}

// permission reports whether app.Permit says rule: one group, one
// resource, some verbs and nothing else.
func permission(rule rbacv1.PolicyRule) bool {
	return len(rule.APIGroups) == 1 && len(rule.Resources) == 1 && rule.Resources[0] != "" &&
		len(rule.Verbs) > 0 && len(rule.ResourceNames) == 0 && len(rule.NonResourceURLs) == 0
}

// roleBinding recognises a.RoleBinding(role, accounts...): named after a
// builder Role, binding builder service accounts of the target namespace.
func (g *gen) roleBinding(obj runtime.Object) (built, bool) {
	rb := obj.(*rbacv1.RoleBinding).DeepCopy()
	name := rb.Name
	role := g.handles.get("Role", name)
	if _, ok := g.takeMeta(&rb.ObjectMeta, name, name, false); !ok || role == nil || len(rb.Subjects) == 0 {
		return built{}, false
	}
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}) {
		return built{}, false
	}
	var accounts []*handle
	for _, s := range rb.Subjects {
		sa := g.handles.get("ServiceAccount", s.Name)
		if s.Kind != rbacv1.ServiceAccountKind || s.APIGroup != "" || s.Namespace != g.in.Target.Namespace || sa == nil {
			return built{}, false
		}
		accounts = append(accounts, sa)
	}
	rb.RoleRef, rb.Subjects = rbacv1.RoleRef{}, nil
	if !rest(rb) {
		return built{}, false
	}
	return built{code: call("RoleBinding", func() []jen.Code {
		args := []jen.Code{role.ref()}
		for _, sa := range accounts {
			args = append(args, sa.ref())
		}
		return args
	})}, true
}
