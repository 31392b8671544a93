package importgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// namespace recognises a.Namespace(name).
func (g *gen) namespace(d *decl) (built, string) {
	orig := d.typed.(*corev1.Namespace)
	left := orig.DeepCopy()
	name := left.Name
	var o options
	if !validLabel(name) {
		return built{}, fmt.Sprintf("its name %q is not a DNS-1123 label", name)
	}
	if why := g.takeMeta(&left.ObjectMeta, name, &o, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	if why := g.tail(&o, "Namespace", d, orig, left, nil); why != "" {
		return built{}, why
	}
	return o.builtCall("Namespace", nil, lit(jen.Lit(name))), ""
}

// networkPolicy recognises a.DefaultDeny(), a.AllowFromAnywhere(to, ...)
// and a.AllowTraffic(from, to, ...) by the names they give their policies.
func (g *gen) networkPolicy(d *decl) (built, string) {
	np := d.typed.(*networkingv1.NetworkPolicy).DeepCopy()
	name := np.Name
	var o options
	if why := g.takeMeta(&np.ObjectMeta, name, &o, metaRules{}); why != "" {
		return built{}, why
	}
	if name == g.in.App+"-default-deny" {
		if b, ok := g.defaultDeny(np); ok {
			return b, ""
		}
	}
	if to, ok := strings.CutPrefix(name, "allow-any-to-"); ok {
		if b, ok := g.allow(np, nil, to); ok {
			return b, ""
		}
	}
	for _, w := range g.workloadHandles() {
		if to, ok := strings.CutPrefix(name, "allow-"+w.name+"-to-"); ok {
			if b, ok := g.allow(np, w, to); ok {
				return b, ""
			}
		}
	}
	return built{}, "it is not a policy DefaultDeny, AllowFromAnywhere or AllowTraffic writes"
}

// workloadHandles returns the builder workloads in name order.
func (g *gen) workloadHandles() []*handle {
	var out []*handle
	for _, k := range slices.Sorted(maps.Keys(g.handles)) {
		if h := g.handles[k]; slices.Contains(workloadKinds, h.kind) {
			out = append(out, h)
		}
	}
	return out
}

var ingressOnly = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}

func (g *gen) defaultDeny(np *networkingv1.NetworkPolicy) (built, bool) {
	want := networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{labelPartOf: g.in.App}},
		PolicyTypes: ingressOnly,
	}
	np.Spec = normalizedPolicy(np.Spec)
	if !equalPolicy(np.Spec, want) {
		return built{}, false
	}
	np.Spec = networkingv1.NetworkPolicySpec{}
	return built{code: func() jen.Code { return jen.Id("a").Dot("DefaultDeny").Call() }}, rest(np)
}

// allow recognises one ingress rule admitting from (everyone when nil) to
// a builder workload on ports it declares.
func (g *gen) allow(np *networkingv1.NetworkPolicy, from *handle, toName string) (built, bool) {
	to := g.handles.workload(toName)
	if to == nil || len(np.Spec.Ingress) != 1 {
		return built{}, false
	}
	rule := np.Spec.Ingress[0]
	var ports []jen.Code
	for _, p := range rule.Ports {
		info, ok := policyPort(to, p)
		if !ok {
			return built{}, false
		}
		ports = append(ports, jen.Lit(int(info.number)))
	}
	want := networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: to.selector},
		PolicyTypes: ingressOnly,
		Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: rule.Ports, From: g.peers(from)}},
	}
	if !equalPolicy(normalizedPolicy(np.Spec), normalizedPolicy(want)) {
		return built{}, false
	}
	np.Spec = networkingv1.NetworkPolicySpec{}
	if !rest(np) {
		return built{}, false
	}
	method := "AllowFromAnywhere"
	if from != nil {
		method = "AllowTraffic"
	}
	refs := []*handle{to}
	if from != nil {
		refs = append(refs, from)
	}
	return built{refs: refs, code: func() jen.Code {
		args := []jen.Code{}
		if from != nil {
			args = append(args, from.ref())
		}
		args = append(append(args, to.ref()), ports...)
		return jen.Id("a").Dot(method).Call(args...)
	}}, true
}

// peers is the From list of a rule admitting from (nil: everyone).
func (g *gen) peers(from *handle) []networkingv1.NetworkPolicyPeer {
	if from == nil {
		return nil
	}
	return []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: from.selector}}}
}

// policyPort checks a policy port names a port of to with its protocol.
func policyPort(to *handle, p networkingv1.NetworkPolicyPort) (port, bool) {
	if p.Port == nil || p.Port.Type != intstr.Int || p.Protocol == nil || p.EndPort != nil {
		return port{}, false
	}
	info, ok := to.port(p.Port.IntVal)
	return info, ok && string(*p.Protocol) == info.protocol
}

// normalizedPolicy drops empty lists so that nil and empty compare equal.
func normalizedPolicy(s networkingv1.NetworkPolicySpec) networkingv1.NetworkPolicySpec {
	for i := range s.Ingress {
		if len(s.Ingress[i].From) == 0 {
			s.Ingress[i].From = nil
		}
		if len(s.Ingress[i].Ports) == 0 {
			s.Ingress[i].Ports = nil
		}
	}
	return s
}

func equalPolicy(a, b networkingv1.NetworkPolicySpec) bool { return semanticEqual(a, b) }
