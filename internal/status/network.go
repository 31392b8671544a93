package status

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// service reads a live Service's type and ports.
func service(u *unstructured.Unstructured) Service {
	var svc corev1.Service
	runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &svc)
	out := Service{Name: svc.Name, Namespace: svc.Namespace, Type: string(svc.Spec.Type), Ports: []ServicePort{}}
	if out.Type == "" {
		out.Type = string(corev1.ServiceTypeClusterIP)
	}
	for _, p := range svc.Spec.Ports {
		target := p.TargetPort.String()
		if target == "0" || target == "" {
			target = strconv.Itoa(int(p.Port)) // unset: the port itself, as the API defaults it
		}
		proto := string(p.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		out.Ports = append(out.Ports, ServicePort{Name: p.Name, Port: p.Port, TargetPort: target, Protocol: proto})
	}
	return out
}

// ingress reads a live Ingress's class and hosts, sorted, each once.
func ingress(u *unstructured.Unstructured) Ingress {
	var ing networkingv1.Ingress
	runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ing)
	out := Ingress{Name: ing.Name, Namespace: ing.Namespace, Hosts: []string{}}
	if c := ing.Spec.IngressClassName; c != nil {
		out.Class = *c
	}
	for _, r := range ing.Spec.Rules {
		if r.Host != "" && !slices.Contains(out.Hosts, r.Host) {
			out.Hosts = append(out.Hosts, r.Host)
		}
	}
	for _, t := range ing.Spec.TLS {
		for _, h := range t.Hosts {
			if !slices.Contains(out.Hosts, h) {
				out.Hosts = append(out.Hosts, h)
			}
		}
	}
	slices.Sort(out.Hosts)
	return out
}
