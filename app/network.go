package app

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DefaultDeny declares the NetworkPolicy "<app>-default-deny": no pod of
// the app accepts ingress traffic unless an AllowTraffic or
// AllowFromAnywhere rule admits it. Egress is not restricted, so pods can
// still resolve names and reach each other's Services once admitted.
func (a *App) DefaultDeny() {
	name := a.name + "-default-deny"
	a.addPolicy(name, networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelPartOf: a.name}},
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
	})
}

// AllowTraffic declares the NetworkPolicy "allow-<from>-to-<to>": pods of
// from may open connections to pods of to on ports (every port when none is
// given). Each port must be one that to declares.
func (a *App) AllowTraffic(from, to *Workload, ports ...int) {
	if from == nil || to == nil {
		a.errorf("allow traffic: workload is nil")
		return
	}
	name := fmt.Sprintf("allow-%s-to-%s", from.name, to.name)
	peer := networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: from.selectorLabels(a)}}
	a.allow(name, to, []networkingv1.NetworkPolicyPeer{peer}, ports, from)
}

// AllowFromAnywhere declares the NetworkPolicy "allow-any-to-<to>": any
// source, inside or outside the cluster (an ingress controller, say), may
// reach pods of to on ports (every port when none is given).
func (a *App) AllowFromAnywhere(to *Workload, ports ...int) {
	if to == nil {
		a.errorf("allow from anywhere: workload is nil")
		return
	}
	a.allow("allow-any-to-"+to.name, to, nil, ports)
}

// allow declares an ingress rule admitting peers (nil: everyone) to to;
// from are the workloads the peers stand for.
func (a *App) allow(name string, to *Workload, peers []networkingv1.NetworkPolicyPeer, ports []int, from ...*Workload) {
	rule := networkingv1.NetworkPolicyIngressRule{From: peers}
	for _, p := range ports {
		info, ok := to.port(int32(p))
		if !ok {
			a.report("NetworkPolicy", name, []string{fmt.Sprintf("port %d is not declared by %s %q", p, lower(to.kind), to.name)})
			continue
		}
		protocol := corev1.Protocol(info.Protocol)
		port := intstr.FromInt32(info.Port)
		rule.Ports = append(rule.Ports, networkingv1.NetworkPolicyPort{Protocol: &protocol, Port: &port})
	}
	e := a.addPolicy(name, networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: to.selectorLabels(a)},
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		Ingress:     []networkingv1.NetworkPolicyIngressRule{rule},
	})
	if e != nil {
		e.about = append([]*Workload{to}, from...)
	}
}

// addPolicy validates and adds a NetworkPolicy, returning its entry (nil
// when the name was taken).
func (a *App) addPolicy(name string, spec networkingv1.NetworkPolicySpec) *entry {
	a.reportName("NetworkPolicy", name, dnsSubdomain)
	if !a.claim("NetworkPolicy", name) {
		return nil
	}
	return a.add(name, &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: meta(name, a.labels(name), nil),
		Spec:       spec,
	}, nil)
}
