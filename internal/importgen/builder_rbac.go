package importgen

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// serviceAccount recognises a.ServiceAccount(name, ...).
func (g *gen) serviceAccount(d *decl) (built, string) {
	orig := d.typed.(*corev1.ServiceAccount)
	left := orig.DeepCopy()
	name := left.Name
	var o options
	if !validSubdomain(name) {
		return built{}, fmt.Sprintf("its name %q is not a DNS-1123 subdomain", name)
	}
	if why := g.takeMeta(&left.ObjectMeta, name, &o, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	if a := left.AutomountServiceAccountToken; a != nil {
		o.list = append([]option{fixed(appCall("AutomountToken", jen.Lit(*a)))}, o.list...)
		left.AutomountServiceAccountToken = nil
	}
	if why := g.tail(&o, "ServiceAccount", d, orig, left, nil); why != "" {
		return built{}, why
	}
	h := &handle{kind: "ServiceAccount", name: name}
	return o.builtCall("ServiceAccount", h, lit(jen.Lit(name))), ""
}

// role recognises a.Role(name, app.Permit(...)...).
func (g *gen) role(d *decl) (built, string) {
	r := d.typed.(*rbacv1.Role).DeepCopy()
	name := r.Name
	var o options
	if why := g.takeMeta(&r.ObjectMeta, name, &o, metaRules{}); why != "" {
		return built{}, why
	}
	rules := r.Rules
	if len(rules) == 0 || !validSubdomain(name) || slices.ContainsFunc(rules, func(rule rbacv1.PolicyRule) bool { return !permission(rule) }) {
		return built{}, "its rules are not each one group, one resource and verbs, as app.Permit says"
	}
	r.Rules = nil
	if !rest(r) {
		return built{}, "it has fields app.Role does not write"
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
	})}, ""
}

// permission reports whether app.Permit says rule: one group, one
// resource, some verbs and nothing else.
func permission(rule rbacv1.PolicyRule) bool {
	return len(rule.APIGroups) == 1 && len(rule.Resources) == 1 && rule.Resources[0] != "" &&
		len(rule.Verbs) > 0 && len(rule.ResourceNames) == 0 && len(rule.NonResourceURLs) == 0
}

// roleBinding recognises a.RoleBinding(role, accounts...): named after a
// builder Role, binding builder service accounts of the target namespace.
func (g *gen) roleBinding(d *decl) (built, string) {
	rb := d.typed.(*rbacv1.RoleBinding).DeepCopy()
	name := rb.Name
	role := g.handles.get("Role", name)
	var o options
	if why := g.takeMeta(&rb.ObjectMeta, name, &o, metaRules{}); why != "" {
		return built{}, why
	}
	if role == nil || len(rb.Subjects) == 0 || rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}) {
		return built{}, "it does not bind a builder Role of its own name"
	}
	var accounts []*handle
	for _, s := range rb.Subjects {
		sa := g.handles.get("ServiceAccount", s.Name)
		if s.Kind != rbacv1.ServiceAccountKind || s.APIGroup != "" || s.Namespace != g.in.Target.Namespace || sa == nil {
			return built{}, "a subject is not a builder ServiceAccount of the target namespace"
		}
		accounts = append(accounts, sa)
	}
	rb.RoleRef, rb.Subjects = rbacv1.RoleRef{}, nil
	if !rest(rb) {
		return built{}, "it has fields app.RoleBinding does not write"
	}
	return built{refs: append([]*handle{role}, accounts...), code: call("RoleBinding", func() []jen.Code {
		args := []jen.Code{role.ref()}
		for _, sa := range accounts {
			args = append(args, sa.ref())
		}
		return args
	})}, ""
}
