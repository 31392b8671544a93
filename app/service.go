package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Service is a handle to a declared Service; use it in an Ingress Route.
type Service struct {
	name  string
	ports []PortInfo
}

// Name returns the Service's name, which is its workload's name.
func (s *Service) Name() string { return s.name }

// Kind returns "Service".
func (s *Service) Kind() string { return "Service" }

// Ports returns the Service's ports.
func (s *Service) Ports() []PortInfo { return append([]PortInfo(nil), s.ports...) }

// serviceSpec is what ServiceOptions set.
type serviceSpec struct {
	common
	ports    []servicePort
	headless bool
	typ      corev1.ServiceType
	errs     []string
}

// servicePort is one port a ServiceOption exposes.
type servicePort struct {
	port, target int
}

// serviceOption adapts a function to ServiceOption.
type serviceOption func(*serviceSpec)

func (o serviceOption) applyService(s *serviceSpec) { o(s) }

// Port exposes port on the Service, forwarding to the same container port.
func Port(port int) ServiceOption {
	return PortTo(port, port)
}

// PortTo exposes port on the Service, forwarding to container port target,
// which the workload must declare.
func PortTo(port, target int) ServiceOption {
	return serviceOption(func(s *serviceSpec) {
		for _, p := range []int{port, target} {
			if msg := portError(p); msg != "" {
				s.errs = append(s.errs, msg)
				return
			}
		}
		s.ports = append(s.ports, servicePort{port: port, target: target})
	})
}

// Headless makes the Service headless (no cluster IP), as a StatefulSet's
// governing Service usually is.
func Headless() ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.headless = true })
}

// ServiceType sets the Service type; the default is ClusterIP.
func ServiceType(t corev1.ServiceType) ServiceOption {
	return serviceOption(func(s *serviceSpec) { s.typ = t })
}

// Service declares a Service named after the workload, selecting its pods.
// Without Port or PortTo it exposes every port the workload declares. Each
// port is named after the workload's port name, or "tcp-<port>".
func (a *App) Service(w *Workload, opts ...ServiceOption) *Service {
	if w == nil {
		a.errorf("service: workload is nil")
		return &Service{}
	}
	var spec serviceSpec
	for _, o := range opts {
		if o != nil {
			o.applyService(&spec)
		}
	}
	ports := a.servicePorts(w, &spec)
	a.report("Service", w.name, spec.errs)
	if a.claim("Service", w.name) {
		a.add(w.name, a.serviceObject(w, spec, ports), &spec.deps)
	}
	return &Service{name: w.name, ports: portInfos(ports)}
}

// servicePorts resolves the Service's ports against the workload's.
func (a *App) servicePorts(w *Workload, spec *serviceSpec) []corev1.ServicePort {
	wanted := spec.ports
	if len(wanted) == 0 {
		for _, p := range w.ports {
			wanted = append(wanted, servicePort{port: int(p.Port), target: int(p.Port)})
		}
	}
	if len(wanted) == 0 && len(spec.errs) == 0 {
		spec.errs = append(spec.errs, fmt.Sprintf("no ports (declare app.Ports on %s %q or app.Port here)", strings.ToLower(w.kind), w.name))
	}
	var out []corev1.ServicePort
	for _, p := range wanted {
		info, ok := w.port(int32(p.target))
		if !ok {
			spec.errs = append(spec.errs, fmt.Sprintf("target port %d is not declared by %s %q", p.target, strings.ToLower(w.kind), w.name))
			continue
		}
		out = append(out, corev1.ServicePort{
			Name:       portName(info, p.port),
			Port:       int32(p.port),
			TargetPort: intstr.FromInt32(int32(p.target)),
			Protocol:   corev1.Protocol(info.Protocol),
		})
	}
	return out
}

// portName names a Service port after its container port.
func portName(info PortInfo, port int) string {
	if info.Name != "" {
		return info.Name
	}
	return fmt.Sprintf("%s-%d", strings.ToLower(info.Protocol), port)
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
func (a *App) serviceObject(w *Workload, spec serviceSpec, ports []corev1.ServicePort) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(w.name, a.labels(w.name), spec.annotations),
		Spec: corev1.ServiceSpec{
			Selector: a.selector(w.name),
			Ports:    ports,
			Type:     spec.typ,
		},
	}
	if spec.headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return svc
}

func portInfos(ports []corev1.ServicePort) []PortInfo {
	var out []PortInfo
	for _, p := range ports {
		out = append(out, PortInfo{Name: p.Name, Port: p.Port, Protocol: string(p.Protocol)})
	}
	return out
}
