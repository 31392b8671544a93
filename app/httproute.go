package app

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// HTTPRouteOption configures a Gateway API HTTPRoute.
type HTTPRouteOption interface{ applyRoute(*routeSpec) }

// RuleOption is a match or a backend of an HTTPRoute Rule.
type RuleOption interface{ applyRule(*ruleSpec) }

// routeSpec is what HTTPRouteOptions set.
type routeSpec struct {
	common
	parents   []map[string]any
	hostnames []any
	rules     []map[string]any
	errs      []string
}

// ruleSpec is what RuleOptions set.
type ruleSpec struct {
	matches  []any
	backends []any
	errs     []string
}

// routeOption adapts a function to HTTPRouteOption.
type routeOption func(*routeSpec)

func (o routeOption) applyRoute(r *routeSpec) { o(r) }

// ruleOption adapts a function to RuleOption.
type ruleOption func(*ruleSpec)

func (o ruleOption) applyRule(r *ruleSpec) { o(r) }

// ParentSpec is the Gateway an HTTPRoute attaches to; make it with
// Gateway. Its methods return a copy with one more setting.
type ParentSpec struct {
	ref map[string]any
	err string
}

// Gateway attaches an HTTPRoute to the Gateway named name in the release's
// namespace (see Namespace).
func Gateway(name string) ParentSpec {
	p := ParentSpec{ref: map[string]any{"name": name}}
	if msg := dnsSubdomain(name); msg != "" {
		p.err = fmt.Sprintf("gateway %q: name must be a %s", name, msg)
	}
	return p
}

// Namespace names the Gateway's namespace.
func (p ParentSpec) Namespace(ns string) ParentSpec {
	p.ref = copyMap(p.ref)
	p.ref["namespace"] = ns
	if msg := dnsLabel(ns); msg != "" && p.err == "" {
		p.err = fmt.Sprintf("gateway namespace %q must be a %s", ns, msg)
	}
	return p
}

// Section attaches to one listener of the Gateway.
func (p ParentSpec) Section(listener string) ParentSpec {
	p.ref = copyMap(p.ref)
	p.ref["sectionName"] = listener
	if msg := dnsSubdomain(listener); msg != "" && p.err == "" {
		p.err = fmt.Sprintf("gateway section %q must be a %s", listener, msg)
	}
	return p
}

func (p ParentSpec) applyRoute(r *routeSpec) {
	if p.err != "" {
		r.errs = append(r.errs, p.err)
		return
	}
	r.parents = append(r.parents, copyMap(p.ref))
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Hostnames limits an HTTPRoute to requests for these hosts (DNS names,
// "*.example.com" allowed).
func Hostnames(hosts ...string) HTTPRouteOption {
	return routeOption(func(r *routeSpec) {
		for _, h := range hosts {
			if msg := explain("DNS name", validation.IsDNS1123Subdomain(strings.TrimPrefix(h, "*."))); msg != "" {
				r.errs = append(r.errs, fmt.Sprintf("hostname %q must be a %s", h, msg))
				continue
			}
			r.hostnames = append(r.hostnames, h)
		}
	})
}

// Rule sends the requests its matches select (every request when it has
// none) to its backends, in the order declared.
func Rule(opts ...RuleOption) HTTPRouteOption {
	return routeOption(func(r *routeSpec) {
		var rule ruleSpec
		for _, o := range opts {
			if o != nil {
				o.applyRule(&rule)
			}
		}
		n := len(r.rules) + 1
		for _, e := range rule.errs {
			r.errs = append(r.errs, fmt.Sprintf("rule %d: %s", n, e))
		}
		if len(rule.backends) == 0 && len(rule.errs) == 0 {
			r.errs = append(r.errs, fmt.Sprintf("rule %d: no backends (use app.Backend)", n))
		}
		out := map[string]any{"backendRefs": rule.backends}
		if len(rule.matches) > 0 {
			out["matches"] = rule.matches
		}
		r.rules = append(r.rules, out)
	})
}

// PathPrefix matches requests whose path starts with path.
func PathPrefix(path string) RuleOption { return pathMatch("PathPrefix", path) }

// ExactPath matches requests for exactly path.
func ExactPath(path string) RuleOption { return pathMatch("Exact", path) }

func pathMatch(kind, path string) RuleOption {
	return ruleOption(func(r *ruleSpec) {
		if len(path) == 0 || path[0] != '/' {
			r.errs = append(r.errs, fmt.Sprintf("path %q must start with /", path))
			return
		}
		r.matches = append(r.matches, map[string]any{"path": map[string]any{"type": kind, "value": path}})
	})
}

// Backend sends matched requests to port of a Service declared on the same
// App.
func Backend(svc *Service, port int) RuleOption {
	return ruleOption(func(r *ruleSpec) {
		switch {
		case svc == nil:
			r.errs = append(r.errs, "backend: service is nil")
		case !hasServicePort(svc, int32(port)):
			r.errs = append(r.errs, fmt.Sprintf("backend: service %q has no port %d", svc.name, port))
		default:
			r.backends = append(r.backends, map[string]any{"name": svc.name, "port": int64(port)})
		}
	})
}

// HTTPRoute declares a Gateway API HTTPRoute (gateway.networking.k8s.io/v1)
// attaching to its Gateways and routing by its Rules to Services of the
// same App. k8s.io/api has no type for it, so the object is unstructured:
// an Edit takes an *unstructured.Unstructured. The cluster needs the
// Gateway API CRDs.
func (a *App) HTTPRoute(name string, opts ...HTTPRouteOption) {
	var spec routeSpec
	for _, o := range opts {
		if o != nil {
			o.applyRoute(&spec)
		}
	}
	if len(spec.parents) == 0 && len(spec.errs) == 0 {
		spec.errs = append(spec.errs, "no gateway (use app.Gateway)")
	}
	if len(spec.rules) == 0 {
		spec.errs = append(spec.errs, "no rules (use app.Rule)")
	}
	a.reportName("HTTPRoute", name, dnsSubdomain)
	a.report("HTTPRoute", name, spec.errs)
	if !a.claim("HTTPRoute", name) {
		return
	}
	a.add(name, routeObject(name, a.labelsOf(name, &spec.common), spec), &spec.common)
}

// routeObject returns the HTTPRoute object.
func routeObject(name string, labels map[string]string, spec routeSpec) *unstructured.Unstructured {
	parents := make([]any, len(spec.parents))
	for i, p := range spec.parents {
		parents[i] = p
	}
	rules := make([]any, len(spec.rules))
	for i, r := range spec.rules {
		rules[i] = r
	}
	s := map[string]any{"parentRefs": parents, "rules": rules}
	if len(spec.hostnames) > 0 {
		s["hostnames"] = spec.hostnames
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "spec": s}}
	u.SetName(name)
	u.SetLabels(labels)
	if len(spec.annotations) > 0 {
		u.SetAnnotations(spec.annotations)
	}
	return u
}
