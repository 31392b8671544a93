package importgen

import (
	"slices"

	"github.com/dave/jennifer/jen"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ingress recognises a.Ingress(name, app.Route(...)..., app.TLS(...)):
// prefix routes to ports of builder Services, one rule per host.
func (g *gen) ingress(obj runtime.Object) (built, bool) {
	in := obj.(*networkingv1.Ingress).DeepCopy()
	name, spec := in.Name, &in.Spec
	notes, ok := g.takeMeta(&in.ObjectMeta, name, name, true)
	if !ok || !validSubdomain(name) || spec.DefaultBackend != nil || len(spec.Rules) == 0 {
		return built{}, false
	}
	routes, ok := g.routes(spec.Rules)
	if !ok {
		return built{}, false
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
		return built{}, false
	}
	return built{code: call("Ingress", func() []jen.Code {
		args := []jen.Code{jen.Lit(name)}
		for _, r := range routes {
			args = append(args, r())
		}
		return append(append(args, opts...), notes...)
	})}, true
}

// routes turns rules into app.Route options, in order.
func (g *gen) routes(rules []networkingv1.IngressRule) ([]option, bool) {
	var out []option
	var hosts []string
	for _, r := range rules {
		if slices.Contains(hosts, r.Host) || r.HTTP == nil || len(r.HTTP.Paths) == 0 || (r.Host != "" && !validSubdomain(r.Host)) {
			return nil, false
		}
		hosts = append(hosts, r.Host)
		for _, p := range r.HTTP.Paths {
			opt, ok := g.route(r.Host, p)
			if !ok {
				return nil, false
			}
			out = append(out, opt)
		}
	}
	return out, true
}

// route recognises one app.Route: a prefix path to a port number of a
// builder Service.
func (g *gen) route(host string, p networkingv1.HTTPIngressPath) (option, bool) {
	b := p.Backend.Service
	if len(p.Path) == 0 || p.Path[0] != '/' || p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix || b == nil || p.Backend.Resource != nil {
		return nil, false
	}
	svc := g.handles.get("Service", b.Name)
	if svc == nil || b.Port.Name != "" {
		return nil, false
	}
	if _, ok := svc.port(b.Port.Number); !ok {
		return nil, false
	}
	path, number := p.Path, int(b.Port.Number)
	return func() jen.Code { return appCall("Route", jen.Lit(host), jen.Lit(path), svc.ref(), jen.Lit(number)) }, true
}
