package app

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ingressSpec is what IngressOptions set.
type ingressSpec struct {
	common
	class  *string
	routes []route
	tls    []networkingv1.IngressTLS
	errs   []string
}

// route sends host/path to a Service port.
type route struct {
	host, path string
	service    string
	port       int32
}

// ingressOption adapts a function to IngressOption.
type ingressOption func(*ingressSpec)

func (o ingressOption) applyIngress(s *ingressSpec) { o(s) }

// Route sends requests for host (any host when "") whose path starts with
// path to port of a Service declared on the same App.
func Route(host, path string, svc *Service, port int) IngressOption {
	return ingressOption(func(s *ingressSpec) {
		if err := routeError(host, path, svc, port); err != "" {
			s.errs = append(s.errs, err)
			return
		}
		s.routes = append(s.routes, route{host: host, path: path, service: svc.name, port: int32(port)})
	})
}

// routeError checks one route.
func routeError(host, path string, svc *Service, port int) string {
	switch {
	case svc == nil:
		return "route: service is nil"
	case host != "" && len(validation.IsDNS1123Subdomain(host)) > 0:
		return fmt.Sprintf("route host %q is not a DNS name", host)
	case len(path) == 0 || path[0] != '/':
		return fmt.Sprintf("route path %q must start with /", path)
	case !hasServicePort(svc, int32(port)):
		return fmt.Sprintf("route %s%s: service %q has no port %d", host, path, svc.name, port)
	}
	return ""
}

func hasServicePort(svc *Service, port int32) bool {
	for _, p := range svc.ports {
		if p.Port == port {
			return true
		}
	}
	return false
}

// IngressClass names the IngressClass (the controller) that serves the
// Ingress; without it the cluster's default class does.
func IngressClass(name string) IngressOption {
	return ingressOption(func(s *ingressSpec) { s.class = &name })
}

// TLS terminates TLS for hosts with the certificate in the Secret named
// secret (kubernetes.io/tls, typically made by cert-manager).
func TLS(secret string, hosts ...string) IngressOption {
	return ingressOption(func(s *ingressSpec) {
		s.tls = append(s.tls, networkingv1.IngressTLS{Hosts: append([]string(nil), hosts...), SecretName: secret})
	})
}

// Ingress declares a networking/v1 Ingress routing HTTP traffic to Services.
// It needs at least one Route; routes for one host share a rule, in the
// order declared. The returned handle names it in an Environment's SetHost.
func (a *App) Ingress(name string, opts ...IngressOption) *Ingress {
	var spec ingressSpec
	for _, o := range opts {
		if o != nil {
			o.applyIngress(&spec)
		}
	}
	if len(spec.routes) == 0 && len(spec.errs) == 0 {
		spec.errs = append(spec.errs, "no routes (use app.Route)")
	}
	a.reportName("Ingress", name, dnsSubdomain)
	a.report("Ingress", name, spec.errs)
	h := &Ingress{name: name}
	if !a.claim("Ingress", name) {
		return h
	}
	a.add(name, &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: meta(name, a.labelsOf(name, &spec.common), spec.annotations),
		Spec: networkingv1.IngressSpec{
			IngressClassName: spec.class,
			Rules:            ingressRules(spec.routes),
			TLS:              spec.tls,
		},
	}, &spec.common)
	return h
}

// Ingress is a handle to a declared Ingress.
type Ingress struct{ name string }

// Name returns the Ingress's name.
func (h *Ingress) Name() string { return h.name }

// Kind returns "Ingress".
func (h *Ingress) Kind() string { return "Ingress" }

// ingressRules groups routes by host, hosts in order of first appearance.
func ingressRules(routes []route) []networkingv1.IngressRule {
	var rules []networkingv1.IngressRule
	index := map[string]int{}
	for _, r := range routes {
		i, ok := index[r.host]
		if !ok {
			i = len(rules)
			index[r.host] = i
			rules = append(rules, networkingv1.IngressRule{Host: r.host, IngressRuleValue: networkingv1.IngressRuleValue{
				HTTP: &networkingv1.HTTPIngressRuleValue{},
			}})
		}
		http := rules[i].HTTP
		http.Paths = append(http.Paths, ingressPath(r))
	}
	return rules
}

func ingressPath(r route) networkingv1.HTTPIngressPath {
	prefix := networkingv1.PathTypePrefix
	return networkingv1.HTTPIngressPath{
		Path:     r.path,
		PathType: &prefix,
		Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: r.service, Port: networkingv1.ServiceBackendPort{Number: r.port},
		}},
	}
}
