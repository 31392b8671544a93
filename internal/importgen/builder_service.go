package importgen

import (
	"fmt"
	"maps"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// service recognises a.Service(workload, ...): named after a builder
// workload, selecting its pods, its ports mapped to ports it declares.
func (g *gen) service(obj runtime.Object) (built, bool) {
	s := obj.(*corev1.Service).DeepCopy()
	name := s.Name
	w := g.handles.workload(name)
	notes, ok := g.takeMeta(&s.ObjectMeta, name, name, true)
	if w == nil || !ok || !maps.Equal(s.Spec.Selector, g.selector(name)) || len(s.Spec.Ports) == 0 {
		return built{}, false
	}
	opts, ports, ok := servicePorts(w, s.Spec.Ports)
	if !ok || (s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone) {
		return built{}, false
	}
	if s.Spec.ClusterIP == corev1.ClusterIPNone {
		opts = append(opts, appCall("Headless"))
	}
	if s.Spec.Type != "" {
		opts = append(opts, appCall("ServiceType", jen.Lit(string(s.Spec.Type))))
	}
	s.Spec.Selector, s.Spec.Ports, s.Spec.ClusterIP, s.Spec.Type = nil, nil, "", ""
	if !rest(s) {
		return built{}, false
	}
	h := &handle{kind: "Service", name: name, ports: ports}
	return built{handle: h, code: call("Service", func() []jen.Code {
		return append(append([]jen.Code{w.ref()}, opts...), notes...)
	})}, true
}

// servicePorts turns Service ports into Port and PortTo options; none
// when they are the workload's own ports in order, which a.Service exposes
// by default.
func servicePorts(w *handle, sps []corev1.ServicePort) ([]jen.Code, []port, bool) {
	var opts []jen.Code
	var ports []port
	same := len(sps) == len(w.ports)
	for i, sp := range sps {
		info, ok := w.port(sp.TargetPort.IntVal)
		if !ok || sp.TargetPort.Type != intstr.Int || sp != (corev1.ServicePort{Name: servicePortName(info, sp.Port), Protocol: corev1.Protocol(info.protocol), Port: sp.Port, TargetPort: sp.TargetPort}) {
			return nil, nil, false
		}
		same = same && w.ports[i].number == sp.Port && sp.Port == sp.TargetPort.IntVal
		ports = append(ports, port{name: sp.Name, number: sp.Port, protocol: info.protocol})
		if sp.Port == sp.TargetPort.IntVal {
			opts = append(opts, appCall("Port", jen.Lit(int(sp.Port))))
		} else {
			opts = append(opts, appCall("PortTo", jen.Lit(int(sp.Port)), jen.Lit(int(sp.TargetPort.IntVal))))
		}
	}
	if same {
		opts = nil
	}
	return opts, ports, true
}

// servicePortName is the name a.Service gives a port: its container
// port's name, or "<protocol>-<port>".
func servicePortName(info port, number int32) string {
	if info.name != "" {
		return info.name
	}
	return fmt.Sprintf("%s-%d", strings.ToLower(info.protocol), number)
}
