package importgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// service recognises a.Service(workload, ...) for a Service that selects
// the pods of a builder workload, else a.ServiceSelecting(name, selector,
// ...).
func (g *gen) service(d *decl) (built, string) {
	orig := d.typed.(*corev1.Service)
	if w := g.serviceWorkload(orig); w != nil {
		if b, why := g.serviceFor(d, orig, w); why == "" {
			return b, ""
		}
	}
	return g.serviceFor(d, orig, nil)
}

// serviceFor recognises the Service as one declared for w, or (w nil) as
// one selecting pods the builders did not declare.
func (g *gen) serviceFor(d *decl, orig *corev1.Service, w *handle) (built, string) {
	left := orig.DeepCopy()
	name, spec := left.Name, &left.Spec
	var o, meta options
	if !validLabel(name) {
		return built{}, fmt.Sprintf("its name %q is not a DNS-1123 label", name)
	}
	if why := g.takeMeta(&left.ObjectMeta, name, &meta, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	var sel func() jen.Code
	if w != nil {
		g.serviceSelection(&o, w, name, spec.Selector)
	} else {
		sel = o.value(g, g.labelMap(spec.Selector, name+"Selector"))
	}
	spec.Selector = nil
	ports, why := servicePorts(w, spec.Ports)
	if why != "" {
		return built{}, why
	}
	o.add(ports...)
	spec.Ports = nil
	takeServiceFields(&o, spec)
	o.merge(&meta)
	if why := g.tail(&o, "Service", d, orig, left, nil); why != "" {
		return built{}, why
	}
	h := &handle{kind: "Service", name: name, ports: servicePortInfos(orig.Spec.Ports)}
	if w != nil {
		return o.builtCall("Service", h, o.ref(w)), ""
	}
	return o.builtCall("ServiceSelecting", h, lit(jen.Lit(name)), sel), ""
}

// serviceWorkload returns the builder workload whose pods the Service
// selects: the one it selects with its own selector, else the one named
// like it, else the only one.
func (g *gen) serviceWorkload(s *corev1.Service) *handle {
	sel := s.Spec.Selector
	if len(sel) == 0 {
		return nil
	}
	var matches []*handle
	for _, k := range slices.Sorted(maps.Keys(g.handles)) {
		h := g.handles[k]
		if slices.Contains(workloadKinds, h.kind) && subset(sel, h.podLabels) {
			matches = append(matches, h)
		}
	}
	for _, pick := range []func(*handle) bool{
		func(h *handle) bool { return maps.Equal(h.selector, sel) },
		func(h *handle) bool { return h.name == s.Name },
	} {
		if i := slices.IndexFunc(matches, pick); i >= 0 {
			return matches[i]
		}
	}
	if len(matches) == 1 {
		return matches[0]
	}
	return nil
}

func subset(a, b map[string]string) bool {
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// serviceSelection writes ServiceName and SelectBy where the Service's
// name and selector are not those a.Service derives from w.
func (g *gen) serviceSelection(o *options, w *handle, name string, selector map[string]string) {
	if name != w.name {
		o.add(appCall("ServiceName", jen.Lit(name)))
	}
	if !maps.Equal(selector, w.selector) {
		o.addOpt(g.labelsOption("SelectBy", selector, name+"Selector", o))
	}
}

// servicePorts writes the Service's ports as Port options with the
// settings a.Service would not derive, or none when they are w's own
// ports, which a.Service exposes by default.
func servicePorts(w *handle, sps []corev1.ServicePort) ([]jen.Code, string) {
	if len(sps) == 0 {
		return nil, "it has no ports"
	}
	var out []jen.Code
	plain := w != nil && len(sps) == len(w.ports)
	for i, sp := range sps {
		code, isPlain, why := servicePort(w, sp)
		if why != "" {
			return nil, why
		}
		plain = plain && isPlain && w.ports[i].number == sp.Port
		out = append(out, code)
	}
	if plain {
		return nil, ""
	}
	return out, ""
}

// servicePort writes one Service port; plain reports that it is Port(n)
// alone.
func servicePort(w *handle, sp corev1.ServicePort) (jen.Code, bool, string) {
	if sp.Port < 1 || sp.Port > 65535 || sp.NodePort < 0 || sp.NodePort > 65535 {
		return nil, false, fmt.Sprintf("port %d or its node port is out of range", sp.Port)
	}
	info, why := serviceTarget(w, sp)
	if why != "" {
		return nil, false, why
	}
	c := appCall("Port", jen.Lit(int(sp.Port)))
	plain := true
	switch t := sp.TargetPort; {
	case t.Type == intstr.String:
		c, plain = c.Dot("ToPort").Call(jen.Lit(t.StrVal)), false
	case t.IntVal == 0:
		c, plain = c.Dot("NoTarget").Call(), false
	case t.IntVal != sp.Port:
		c, plain = c.Dot("To").Call(jen.Lit(int(t.IntVal))), false
	}
	c, settings, why := portSettings(c, sp, info)
	return c, plain && !settings, why
}

// serviceTarget mirrors the app's resolution of a port's target against
// w (nil: unchecked): the container port it forwards to, as far as known.
func serviceTarget(w *handle, sp corev1.ServicePort) (port, string) {
	t := sp.TargetPort
	number := sp.Port
	switch {
	case t.Type == intstr.String && t.StrVal == "":
		return port{}, "a target port name is empty"
	case t.Type == intstr.String && w == nil:
		return port{name: t.StrVal}, ""
	case t.Type == intstr.String:
		if p, ok := w.namedPort(t.StrVal); ok {
			return p, ""
		}
		return port{}, fmt.Sprintf("target port %q is not one %s %s declares", t.StrVal, strings.ToLower(w.kind), w.name)
	case t.IntVal != 0:
		number = t.IntVal
	}
	if w == nil {
		return port{number: number}, ""
	}
	p, ok := w.port(number)
	if !ok && t.IntVal != 0 {
		return port{}, fmt.Sprintf("target port %d is not one %s %s declares", number, strings.ToLower(w.kind), w.name)
	}
	return p, ""
}

// portSettings adds Protocol, Named, NodePort and AppProtocol where the
// port's values are not the derived ones.
func portSettings(c *jen.Statement, sp corev1.ServicePort, info port) (*jen.Statement, bool, string) {
	derived := corev1.Protocol("")
	if info.protocol != "" && info.protocol != string(corev1.ProtocolTCP) {
		derived = corev1.Protocol(info.protocol)
	}
	settings := false
	switch {
	case sp.Protocol == derived:
	case sp.Protocol == "":
		return nil, false, fmt.Sprintf("port %d has no protocol, and its container port's %s would be written", sp.Port, derived)
	case slices.Contains([]corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}, sp.Protocol):
		c, settings = c.Dot("Protocol").Call(jen.Lit(string(sp.Protocol))), true
	default:
		return nil, false, fmt.Sprintf("port %d has protocol %q", sp.Port, sp.Protocol)
	}
	if sp.Name != derivedPortName(info, string(sp.Protocol), sp.Port) {
		if sp.Name != "" && len(validation.IsDNS1123Label(sp.Name)) > 0 {
			return nil, false, fmt.Sprintf("port name %q is not a DNS-1123 label", sp.Name)
		}
		c, settings = c.Dot("Named").Call(jen.Lit(sp.Name)), true
	}
	if sp.NodePort != 0 {
		c, settings = c.Dot("NodePort").Call(jen.Lit(int(sp.NodePort))), true
	}
	if a := sp.AppProtocol; a != nil {
		if len(validation.IsQualifiedName(*a)) > 0 {
			return nil, false, fmt.Sprintf("app protocol %q is not a qualified name", *a)
		}
		c, settings = c.Dot("AppProtocol").Call(jen.Lit(*a)), true
	}
	return c, settings, ""
}

// derivedPortName is the name a.Service gives a port: its container
// port's name, or "<protocol>-<port>".
func derivedPortName(info port, protocol string, number int32) string {
	if info.name != "" {
		return info.name
	}
	if protocol == "" {
		protocol = string(corev1.ProtocolTCP)
	}
	return fmt.Sprintf("%s-%d", strings.ToLower(protocol), number)
}

// takeServiceFields claims the Service fields its options set.
func takeServiceFields(o *options, spec *corev1.ServiceSpec) {
	if spec.ClusterIP == corev1.ClusterIPNone {
		o.add(appCall("Headless"))
		spec.ClusterIP = ""
	}
	if t := spec.Type; t != "" {
		o.add(appCall("ServiceType", jen.Lit(string(t))))
		spec.Type = ""
	}
	if a := spec.SessionAffinity; a == corev1.ServiceAffinityClientIP || a == corev1.ServiceAffinityNone {
		o.add(appCall("SessionAffinity", jen.Lit(string(a))))
		spec.SessionAffinity = ""
	}
	if p := spec.ExternalTrafficPolicy; p == corev1.ServiceExternalTrafficPolicyLocal || p == corev1.ServiceExternalTrafficPolicyCluster {
		o.add(appCall("ExternalTrafficPolicy", jen.Lit(string(p))))
		spec.ExternalTrafficPolicy = ""
	}
}

// servicePortInfos are a Service's ports for Ingress routes.
func servicePortInfos(sps []corev1.ServicePort) []port {
	var out []port
	for _, p := range sps {
		out = append(out, port{name: p.Name, number: p.Port, protocol: protocolOf(p.Protocol)})
	}
	return out
}
