package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Service is a handle to a declared Service; use it in an Ingress Route or
// an HTTPRoute Backend.
type Service struct {
	name  string
	ports []PortInfo
}

// Name returns the Service's name.
func (s *Service) Name() string { return s.name }

// Kind returns "Service".
func (s *Service) Kind() string { return "Service" }

// Ports returns the Service's ports.
func (s *Service) Ports() []PortInfo { return append([]PortInfo(nil), s.ports...) }

// serviceSpec is what ServiceOptions set.
type serviceSpec struct {
	common
	name          string
	ports         []ServicePortSpec
	headless      bool
	typ           corev1.ServiceType
	selectBy      map[string]string
	selectBySet   bool
	affinity      corev1.ServiceAffinity
	trafficPolicy corev1.ServiceExternalTrafficPolicy
	errs          []string
}

// serviceOption adapts a function to ServiceOption.
type serviceOption func(*serviceSpec)

func (o serviceOption) applyService(s *serviceSpec) { o(s) }

// ServicePortSpec is one port a Service exposes; make it with Port or
// PortTo. Its methods return a copy with one more setting.
type ServicePortSpec struct {
	port        int
	target      *intstr.IntOrString // nil: no targetPort written
	name        *string
	protocol    corev1.Protocol
	nodePort    int
	appProtocol *string
	err         string
}

// Port exposes port on the Service, forwarding to the same container port.
func Port(port int) ServicePortSpec {
	t := intstr.FromInt32(int32(port))
	return ServicePortSpec{port: port, target: &t, err: portError(port)}
}

// PortTo exposes port on the Service, forwarding to container port target,
// which a workload the Service is declared for must declare.
func PortTo(port, target int) ServicePortSpec { return Port(port).To(target) }

// To forwards to container port target.
func (s ServicePortSpec) To(target int) ServicePortSpec {
	t := intstr.FromInt32(int32(target))
	s.target = &t
	return s.check(portError(target))
}

// ToPort forwards to the container port named target ("http"), which a
// workload the Service is declared for must declare.
func (s ServicePortSpec) ToPort(target string) ServicePortSpec {
	t := intstr.FromString(target)
	s.target = &t
	if target == "" {
		return s.check(fmt.Sprintf("port %d: target port name is empty", s.port))
	}
	return s
}

// NoTarget leaves targetPort out: Kubernetes forwards to the container
// port of the same number.
func (s ServicePortSpec) NoTarget() ServicePortSpec {
	s.target = nil
	return s
}

// Named names the port; "" leaves it unnamed (a Service with one port
// may). Without it the port is named after its container port, or
// "<protocol>-<port>".
func (s ServicePortSpec) Named(name string) ServicePortSpec {
	s.name = &name
	if msg := explain("DNS-1123 label", validation.IsDNS1123Label(name)); name != "" && msg != "" {
		return s.check(fmt.Sprintf("port %d: name %q must be a %s", s.port, name, msg))
	}
	return s
}

// Protocol sets the port's protocol explicitly; without it the protocol
// is its container port's, written only when it is not TCP.
func (s ServicePortSpec) Protocol(p corev1.Protocol) ServicePortSpec {
	s.protocol = p
	if !slices.Contains([]corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}, p) {
		return s.check(fmt.Sprintf("port %d: protocol %q is not TCP, UDP or SCTP", s.port, p))
	}
	return s
}

// NodePort asks for port n on every node, for a NodePort or LoadBalancer
// Service.
func (s ServicePortSpec) NodePort(n int) ServicePortSpec {
	s.nodePort = n
	if msg := portError(n); msg != "" {
		return s.check("node " + msg)
	}
	return s
}

// AppProtocol names the application protocol ("http", "kubernetes.io/h2c").
func (s ServicePortSpec) AppProtocol(p string) ServicePortSpec {
	s.appProtocol = &p
	if msg := explain("qualified name", validation.IsQualifiedName(p)); msg != "" {
		return s.check(fmt.Sprintf("port %d: app protocol %q must be a %s", s.port, p, msg))
	}
	return s
}

func (s ServicePortSpec) check(msg string) ServicePortSpec {
	if msg != "" && s.err == "" {
		s.err = msg
	}
	return s
}

func (s ServicePortSpec) applyService(spec *serviceSpec) {
	if s.err != "" {
		spec.errs = append(spec.errs, s.err)
		return
	}
	spec.ports = append(spec.ports, s)
}

// ServiceName names the Service, which is otherwise named after its
// workload: for a second Service of one workload ("web-external").
func ServiceName(name string) ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.name = name })
}

// SelectBy makes a Service declared for a workload select its pods by
// these labels only, which must be among the labels its pods carry (a
// Service that must keep the selector it has). The map is copied.
func SelectBy(labels map[string]string) ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.selectBy, s.selectBySet = maps.Clone(labels), true })
}

// Headless makes the Service headless (no cluster IP), as a StatefulSet's
// governing Service usually is.
func Headless() ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.headless = true })
}

// ServiceType sets the Service type; without it Kubernetes uses ClusterIP.
func ServiceType(t corev1.ServiceType) ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.typ = t })
}

// SessionAffinity sends a client's connections to one pod (ClientIP) or
// not (None).
func SessionAffinity(a corev1.ServiceAffinity) ServiceOption {
	return serviceOption(func(s *serviceSpec) {
		if a != corev1.ServiceAffinityClientIP && a != corev1.ServiceAffinityNone {
			s.errs = append(s.errs, fmt.Sprintf("session affinity %q is not ClientIP or None", a))
			return
		}
		s.affinity = a
	})
}

// ExternalTrafficPolicy sets whether a NodePort or LoadBalancer Service
// routes external traffic only to pods on the node it arrived at (Local,
// keeping the client address) or to any (Cluster).
func ExternalTrafficPolicy(p corev1.ServiceExternalTrafficPolicy) ServiceOption {
	return serviceOption(func(s *serviceSpec) {
		if p != corev1.ServiceExternalTrafficPolicyLocal && p != corev1.ServiceExternalTrafficPolicyCluster {
			s.errs = append(s.errs, fmt.Sprintf("external traffic policy %q is not Local or Cluster", p))
			return
		}
		s.trafficPolicy = p
	})
}

// Service declares a Service for a workload, named after it (see
// ServiceName) and selecting its pods with its selector (see SelectBy).
// Without Port or PortTo it exposes every port the workload declares. Each
// port is named after the workload's port name, or "<protocol>-<port>".
func (a *App) Service(w *Workload, opts ...ServiceOption) *Service {
	if w == nil {
		a.errorf("service: workload is nil")
		return &Service{}
	}
	spec := newServiceSpec(w.name, opts)
	selector := w.selectorLabels(a)
	if spec.selectBySet {
		selector = a.selectBy(w, &spec)
	}
	return a.declareService(w, selector, spec)
}

// ServiceSelecting declares a Service named name for pods the builders did
// not declare (run by an operator, or by a k8s.io/api literal), selecting
// them by selector (nil: none, for endpoints managed by hand). Its ports
// are the Port and PortTo options; their targets cannot be checked.
func (a *App) ServiceSelecting(name string, selector map[string]string, opts ...ServiceOption) *Service {
	spec := newServiceSpec(name, opts)
	if spec.selectBySet {
		spec.errs = append(spec.errs, "SelectBy applies to a Service declared for a workload; the selector is ServiceSelecting's")
	}
	return a.declareService(nil, maps.Clone(selector), spec)
}

func newServiceSpec(name string, opts []ServiceOption) serviceSpec {
	spec := serviceSpec{name: name}
	for _, o := range opts {
		if o != nil {
			o.applyService(&spec)
		}
	}
	return spec
}

// selectBy checks that SelectBy's labels select w's pods.
func (a *App) selectBy(w *Workload, spec *serviceSpec) map[string]string {
	pods := w.podLabelsOf(a)
	for _, k := range slices.Sorted(maps.Keys(spec.selectBy)) {
		if v := spec.selectBy[k]; pods[k] != v {
			spec.errs = append(spec.errs, fmt.Sprintf("selector %s=%s does not select the pods of %s %q", k, v, lower(w.kind), w.name))
		}
	}
	if len(spec.selectBy) == 0 {
		spec.errs = append(spec.errs, "SelectBy needs at least one label")
	}
	return spec.selectBy
}

// declareService resolves the ports, validates and adds a Service.
func (a *App) declareService(w *Workload, selector map[string]string, spec serviceSpec) *Service {
	ports := a.servicePorts(w, &spec)
	a.reportName("Service", spec.name, dnsLabel)
	a.report("Service", spec.name, spec.errs)
	if a.claim("Service", spec.name) {
		e := a.add(spec.name, a.serviceObject(spec, selector, ports), &spec.common)
		if w != nil {
			e.about = []*Workload{w}
		}
	}
	return &Service{name: spec.name, ports: portInfos(ports)}
}

// servicePorts resolves the Service's ports against the workload's (w nil
// for ServiceSelecting).
func (a *App) servicePorts(w *Workload, spec *serviceSpec) []corev1.ServicePort {
	wanted := spec.ports
	if len(wanted) == 0 && w != nil {
		for _, p := range w.ports {
			wanted = append(wanted, Port(int(p.Port)))
		}
	}
	if len(wanted) == 0 && len(spec.errs) == 0 {
		spec.errs = append(spec.errs, noPorts(w))
	}
	var out []corev1.ServicePort
	for _, p := range wanted {
		info, err := targetInfo(w, p)
		if err != "" {
			spec.errs = append(spec.errs, err)
			continue
		}
		out = append(out, p.servicePort(info))
	}
	return out
}

func noPorts(w *Workload) string {
	if w == nil {
		return "no ports (use app.Port or app.PortTo)"
	}
	return fmt.Sprintf("no ports (declare app.Ports on %s %q or app.Port here)", strings.ToLower(w.kind), w.name)
}

// targetInfo returns the container port a Service port forwards to, as far
// as it is known, or what is wrong with its target.
func targetInfo(w *Workload, p ServicePortSpec) (PortInfo, string) {
	number := int32(p.port)
	switch {
	case p.target != nil && p.target.Type == intstr.String:
		if w == nil {
			return PortInfo{Name: p.target.StrVal}, ""
		}
		if i := slices.IndexFunc(w.ports, func(x PortInfo) bool { return x.Name == p.target.StrVal }); i >= 0 {
			return w.ports[i], ""
		}
		return PortInfo{}, fmt.Sprintf("target port %q is not declared by %s %q", p.target.StrVal, strings.ToLower(w.kind), w.name)
	case p.target != nil:
		number = p.target.IntVal
	}
	if w == nil {
		return PortInfo{Port: number}, ""
	}
	info, ok := w.port(number)
	if !ok && p.target != nil {
		return PortInfo{}, fmt.Sprintf("target port %d is not declared by %s %q", number, strings.ToLower(w.kind), w.name)
	}
	return info, ""
}

// servicePort writes one Service port: its name and protocol stated or
// derived from its container port info.
func (p ServicePortSpec) servicePort(info PortInfo) corev1.ServicePort {
	sp := corev1.ServicePort{Port: int32(p.port), NodePort: int32(p.nodePort), AppProtocol: p.appProtocol, Protocol: p.protocol}
	if p.target != nil {
		sp.TargetPort = *p.target
	}
	if sp.Protocol == "" && info.Protocol != "" && info.Protocol != string(corev1.ProtocolTCP) {
		sp.Protocol = corev1.Protocol(info.Protocol)
	}
	sp.Name = portName(info, string(sp.Protocol), p.port)
	if p.name != nil {
		sp.Name = *p.name
	}
	return sp
}

// portName names a Service port after its container port, or
// "<protocol>-<port>".
func portName(info PortInfo, protocol string, port int) string {
	if info.Name != "" {
		return info.Name
	}
	if protocol == "" {
		protocol = string(corev1.ProtocolTCP)
	}
	return fmt.Sprintf("%s-%d", strings.ToLower(protocol), port)
}

// port returns the declared container port.
func (w *Workload) port(port int32) (PortInfo, bool) {
	for _, p := range w.ports {
		if p.Port == port {
			return p, true
		}
	}
	return PortInfo{}, false
}

// serviceObject returns the Service object.
func (a *App) serviceObject(spec serviceSpec, selector map[string]string, ports []corev1.ServicePort) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(spec.name, a.labelsOf(spec.name, &spec.common), spec.annotations),
		Spec: corev1.ServiceSpec{
			Selector:              selector,
			Ports:                 ports,
			Type:                  spec.typ,
			SessionAffinity:       spec.affinity,
			ExternalTrafficPolicy: spec.trafficPolicy,
		},
	}
	if len(selector) == 0 {
		svc.Spec.Selector = nil
	}
	if spec.headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return svc
}

func portInfos(ports []corev1.ServicePort) []PortInfo {
	var out []PortInfo
	for _, p := range ports {
		protocol := p.Protocol
		if protocol == "" {
			protocol = corev1.ProtocolTCP
		}
		out = append(out, PortInfo{Name: p.Name, Port: p.Port, Protocol: string(protocol)})
	}
	return out
}
