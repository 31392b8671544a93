package app

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Image sets the container image, normally ctx.Image("name") so the pinned
// reference comes from release.toml.
func Image(ref string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.cur.c.Image, w.cur.imageSet = ref, true })
}

// Command replaces the image's entrypoint.
func Command(cmd ...string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.cur.c.Command = append([]string(nil), cmd...) })
}

// Args replaces the image's default arguments.
func Args(args ...string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.cur.c.Args = append([]string(nil), args...) })
}

// ContainerName names the container, which is otherwise named after the
// workload (the main container) or as Sidecar and InitContainer say. It
// must be a DNS-1123 label.
func ContainerName(name string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if msg := dnsLabel(name); msg != "" {
			w.fail("container name %q must be a %s", name, msg)
			return
		}
		w.cur.c.Name = name
	})
}

// ImagePullPolicy sets when the kubelet pulls the container's image
// (Always, IfNotPresent or Never); without it Kubernetes decides by the
// image's tag.
func ImagePullPolicy(p corev1.PullPolicy) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !slices.Contains([]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}, p) {
			w.fail("image pull policy %q is not Always, IfNotPresent or Never", p)
			return
		}
		w.cur.c.ImagePullPolicy = p
	})
}

// WorkingDir sets the container's working directory, an absolute path.
func WorkingDir(dir string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if len(dir) == 0 || dir[0] != '/' {
			w.fail("working directory %q must be absolute", dir)
			return
		}
		w.cur.c.WorkingDir = dir
	})
}

// SecurityContext sets the container's security context (user, group,
// capabilities, privilege escalation, read-only root filesystem, seccomp
// profile, ...). The value is copied.
func SecurityContext(sc *corev1.SecurityContext) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if sc == nil {
			w.fail("security context is nil")
			return
		}
		w.cur.c.SecurityContext = sc.DeepCopy()
	})
}

// Requests sets the container's CPU and memory requests, as quantities
// ("250m", "128Mi"); an empty string leaves that resource unset. Request
// sets any other resource.
func Requests(cpu, memory string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.setQuantity("requests", &w.cur.c.Resources.Requests, corev1.ResourceCPU, cpu)
		w.setQuantity("requests", &w.cur.c.Resources.Requests, corev1.ResourceMemory, memory)
	})
}

// Limits sets the container's CPU and memory limits, as quantities; an
// empty string leaves that resource unset. Limit sets any other resource.
func Limits(cpu, memory string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.setQuantity("limits", &w.cur.c.Resources.Limits, corev1.ResourceCPU, cpu)
		w.setQuantity("limits", &w.cur.c.Resources.Limits, corev1.ResourceMemory, memory)
	})
}

// Request sets the container's request of one resource
// ("ephemeral-storage", "nvidia.com/gpu", ...) to a quantity.
func Request(name corev1.ResourceName, quantity string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.setQuantity("requests", &w.cur.c.Resources.Requests, name, required(quantity))
	})
}

// Limit sets the container's limit of one resource to a quantity.
func Limit(name corev1.ResourceName, quantity string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.setQuantity("limits", &w.cur.c.Resources.Limits, name, required(quantity))
	})
}

// required turns an empty quantity into one that fails to parse, so that
// Request and Limit report it.
func required(q string) string {
	if q == "" {
		return "<empty>"
	}
	return q
}

// setQuantity parses one quantity into list, recording a bad one; an
// empty value sets nothing.
func (w *Workload) setQuantity(field string, list *corev1.ResourceList, name corev1.ResourceName, value string) {
	if value == "" {
		return
	}
	if msg := explain("resource name", validation.IsQualifiedName(string(name))); msg != "" {
		w.fail("%s %q: %s", field, name, msg)
		return
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		w.fail("%s %s %q: %v", field, name, value, err)
		return
	}
	if *list == nil {
		*list = corev1.ResourceList{}
	}
	(*list)[name] = q
}

// ContainerPortSpec is one container port; make it with NamedPort,
// ContainerPort or UDPPort. The methods return a copy that also sets the
// protocol explicitly or binds a host port.
type ContainerPortSpec struct {
	p   corev1.ContainerPort
	err string
}

// ContainerPort declares one unnamed container port (TCP unless a method
// says otherwise). Ports declares several at once.
func ContainerPort(port int) ContainerPortSpec {
	return ContainerPortSpec{p: corev1.ContainerPort{ContainerPort: int32(port)}, err: portError(port)}
}

// NamedPort declares one named TCP container port; the name (an IANA
// service name such as "http") is reused by Services and probes.
func NamedPort(name string, port int) ContainerPortSpec {
	s := ContainerPort(port)
	s.p.Name = name
	if msg := explain("IANA service name", validation.IsValidPortName(name)); name != "" && msg != "" && s.err == "" {
		s.err = fmt.Sprintf("port name %q must be an %s", name, msg)
	}
	return s
}

// UDPPort declares one UDP container port.
func UDPPort(port int) ContainerPortSpec { return ContainerPort(port).UDP() }

// TCP writes protocol: TCP explicitly (it is the default).
func (s ContainerPortSpec) TCP() ContainerPortSpec { return s.protocol(corev1.ProtocolTCP) }

// UDP makes the port a UDP port.
func (s ContainerPortSpec) UDP() ContainerPortSpec { return s.protocol(corev1.ProtocolUDP) }

// SCTP makes the port an SCTP port.
func (s ContainerPortSpec) SCTP() ContainerPortSpec { return s.protocol(corev1.ProtocolSCTP) }

func (s ContainerPortSpec) protocol(p corev1.Protocol) ContainerPortSpec {
	s.p.Protocol = p
	return s
}

// Host also exposes the port on the node's address at hostPort.
func (s ContainerPortSpec) Host(hostPort int) ContainerPortSpec {
	s.p.HostPort = int32(hostPort)
	if msg := portError(hostPort); msg != "" && s.err == "" {
		s.err = "host " + msg
	}
	return s
}

// HostIP binds the host port to one node address.
func (s ContainerPortSpec) HostIP(ip string) ContainerPortSpec {
	s.p.HostIP = ip
	if len(validation.IsValidIP(nil, ip)) > 0 && s.err == "" {
		s.err = fmt.Sprintf("host IP %q is not an IP address", ip)
	}
	return s
}

func (s ContainerPortSpec) applyWorkload(w *Workload) {
	if s.err != "" {
		w.fail("%s", s.err)
		return
	}
	w.addPort(s.p)
}

// Ports declares unnamed TCP container ports. They become the default
// ports of a Service declared for the workload and the ports Piceli can
// forward.
func Ports(ports ...int) WorkloadOption {
	return workloadOption(func(w *Workload) {
		for _, p := range ports {
			ContainerPort(p).applyWorkload(w)
		}
	})
}

// addPort adds a port to the current container and the component's ports.
func (w *Workload) addPort(p corev1.ContainerPort) {
	protocol := p.Protocol
	if protocol == "" {
		protocol = corev1.ProtocolTCP
	}
	if _, dup := w.port(p.ContainerPort); dup {
		w.fail("port %d declared twice", p.ContainerPort)
		return
	}
	if p.Name != "" && slices.ContainsFunc(w.ports, func(x PortInfo) bool { return x.Name == p.Name }) {
		w.fail("port name %q declared twice", p.Name)
		return
	}
	w.cur.c.Ports = append(w.cur.c.Ports, p)
	if w.cur.role != "init container" {
		w.ports = append(w.ports, PortInfo{Name: p.Name, Port: p.ContainerPort, Protocol: string(protocol)})
	}
}
