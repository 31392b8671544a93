package importgen

import (
	"slices"

	"github.com/dave/jennifer/jen"
	networkingv1 "k8s.io/api/networking/v1"
)

// ingress recognises a.Ingress(name, app.Route(...)..., app.TLS(...)):
// prefix routes to ports of builder Services, one rule per host.
func (g *gen) ingress(d *decl) (built, string) {
	in := d.typed.(*networkingv1.Ingress).DeepCopy()
	name, spec := in.Name, &in.Spec
	var meta options
	if why := g.takeMeta(&in.ObjectMeta, name, &meta, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	if !validSubdomain(name) || spec.DefaultBackend != nil || len(spec.Rules) == 0 {
		return built{}, "it has a default backend or no rules"
	}
	routes, refs, ok := g.routes(spec.Rules)
	if !ok {
		return built{}, "a rule is not a prefix path to a port number of a builder Service"
	}
	var opts []jen.Code
	if spec.IngressClassName != nil {
		opts = append(opts, appCall("IngressClass", jen.Lit(*spec.IngressClassName)))
	}
	for _, t := range spec.TLS {
		opts = append(opts, appCall("TLS", append([]jen.Code{jen.Lit(t.SecretName)}, strs(t.Hosts)...)...))
	}
	spec.IngressClassName, spec.Rules, spec.TLS = nil, nil, nil
	if !rest(in) {
		return built{}, "it has fields the Ingress options do not write"
	}
	return built{refs: refs, uses: meta.uses, code: call("Ingress", func() []jen.Code {
		args := []jen.Code{jen.Lit(name)}
		for _, r := range routes {
			args = append(args, r())
		}
		return append(append(args, opts...), meta.render()...)
	})}, ""
}

// routes turns rules into app.Route options, in order.
func (g *gen) routes(rules []networkingv1.IngressRule) ([]option, []*handle, bool) {
	var out []option
	var refs []*handle
	var hosts []string
	for _, r := range rules {
		if slices.Contains(hosts, r.Host) || r.HTTP == nil || len(r.HTTP.Paths) == 0 || (r.Host != "" && !validSubdomain(r.Host)) {
			return nil, nil, false
		}
		hosts = append(hosts, r.Host)
		for _, p := range r.HTTP.Paths {
			opt, svc, ok := g.route(r.Host, p)
			if !ok {
				return nil, nil, false
			}
			out, refs = append(out, opt), append(refs, svc)
		}
	}
	return out, refs, true
}

// route recognises one app.Route: a prefix path to a port number of a
// builder Service.
func (g *gen) route(host string, p networkingv1.HTTPIngressPath) (option, *handle, bool) {
	b := p.Backend.Service
	if len(p.Path) == 0 || p.Path[0] != '/' || p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix || b == nil || p.Backend.Resource != nil {
		return nil, nil, false
	}
	svc := g.handles.get("Service", b.Name)
	if svc == nil || b.Port.Name != "" {
		return nil, nil, false
	}
	if _, ok := svc.port(b.Port.Number); !ok {
		return nil, nil, false
	}
	path, number := p.Path, int(b.Port.Number)
	return func() jen.Code { return appCall("Route", jen.Lit(host), jen.Lit(path), svc.ref(), jen.Lit(number)) }, svc, true
}
