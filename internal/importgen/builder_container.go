package importgen

import (
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// container reads a workload's one container: image, command, args,
// ports, env, requests, limits and probes. Volume mounts and the name are
// left to the caller. It clears what it read.
func (g *gen) container(w *workload, c *corev1.Container) bool {
	if c.Image == "" {
		return false
	}
	image := c.Image
	w.head = append(w.head, func() jen.Code { return appCall("Image", g.images.ref(image)) })
	if len(c.Command) > 0 {
		w.head = append(w.head, fixed(appCall("Command", strs(c.Command)...)))
	}
	if len(c.Args) > 0 {
		w.head = append(w.head, fixed(appCall("Args", strs(c.Args)...)))
	}
	ok := g.ports(w, c.Ports) && g.env(w, c.Env) && w.resources(c.Resources)
	ok = ok && w.probe("Ready", c.ReadinessProbe) && w.probe("Live", c.LivenessProbe)
	c.Image, c.Command, c.Args, c.Ports, c.Env = "", nil, nil, nil, nil
	c.Resources, c.ReadinessProbe, c.LivenessProbe = corev1.ResourceRequirements{}, nil, nil
	return ok
}

func strs(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = str(s)
	}
	return out
}

// ports turns container ports into Ports, NamedPort and UDPPort options,
// keeping their order: consecutive unnamed TCP ports share one Ports.
func (g *gen) ports(w *workload, ports []corev1.ContainerPort) bool {
	var run []jen.Code
	flush := func() {
		if len(run) > 0 {
			w.body = append(w.body, fixed(appCall("Ports", run...)))
			run = nil
		}
	}
	for _, p := range ports {
		if !builderPort(p) || slices.ContainsFunc(w.ports, func(x port) bool { return x.number == p.ContainerPort }) {
			return false
		}
		w.ports = append(w.ports, port{name: p.Name, number: p.ContainerPort, protocol: string(p.Protocol)})
		switch {
		case p.Protocol == corev1.ProtocolTCP && p.Name == "":
			run = append(run, jen.Lit(int(p.ContainerPort)))
		case p.Protocol == corev1.ProtocolTCP:
			flush()
			w.body = append(w.body, fixed(appCall("NamedPort", jen.Lit(p.Name), jen.Lit(int(p.ContainerPort)))))
		default:
			flush()
			w.body = append(w.body, fixed(appCall("UDPPort", jen.Lit(int(p.ContainerPort)))))
		}
	}
	flush()
	return true
}

// builderPort reports whether a port options write it: a valid number,
// TCP with or without a valid name, or unnamed UDP.
func builderPort(p corev1.ContainerPort) bool {
	switch {
	case p.ContainerPort < 1 || p.ContainerPort > 65535 || p.HostPort != 0 || p.HostIP != "":
		return false
	case p.Protocol == corev1.ProtocolUDP:
		return p.Name == ""
	case p.Protocol == corev1.ProtocolTCP:
		return p.Name == "" || len(validation.IsValidPortName(p.Name)) == 0
	}
	return false
}

// env turns environment variables into Env, EnvFromConfig and
// EnvFromSecret options.
func (g *gen) env(w *workload, vars []corev1.EnvVar) bool {
	var seen []string
	for _, v := range vars {
		if len(validation.IsEnvVarName(v.Name)) > 0 || slices.Contains(seen, v.Name) {
			return false
		}
		seen = append(seen, v.Name)
		opt, ok := g.envVar(v)
		if !ok {
			return false
		}
		w.body = append(w.body, opt)
	}
	return true
}

// envVar recognises one environment variable's option.
func (g *gen) envVar(v corev1.EnvVar) (option, bool) {
	name := jen.Lit(v.Name)
	src := v.ValueFrom
	switch {
	case src == nil:
		return fixed(appCall("Env", name, str(v.Value))), true
	case v.Value != "":
		return nil, false
	case src.ConfigMapKeyRef != nil && *src == (corev1.EnvVarSource{ConfigMapKeyRef: src.ConfigMapKeyRef}):
		return g.keyRef("EnvFromConfig", "ConfigMap", name, src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key, src.ConfigMapKeyRef.Optional)
	case src.SecretKeyRef != nil && *src == (corev1.EnvVarSource{SecretKeyRef: src.SecretKeyRef}):
		return g.keyRef("EnvFromSecret", "Secret", name, src.SecretKeyRef.Name, src.SecretKeyRef.Key, src.SecretKeyRef.Optional)
	}
	return nil, false
}

// keyRef writes EnvFromConfig or EnvFromSecret for a key the builder
// handle declares.
func (g *gen) keyRef(method, kind string, name jen.Code, object, key string, optional *bool) (option, bool) {
	h := g.handles.get(kind, object)
	if h == nil || !h.hasKey(key) || optional != nil {
		return nil, false
	}
	return func() jen.Code { return appCall(method, name, h.ref(), jen.Lit(key)) }, true
}

// resources turns CPU and memory requests and limits into Requests and
// Limits.
func (w *workload) resources(r corev1.ResourceRequirements) bool {
	if len(r.Claims) > 0 {
		return false
	}
	for _, l := range []struct {
		method string
		list   corev1.ResourceList
	}{{"Requests", r.Requests}, {"Limits", r.Limits}} {
		if len(l.list) == 0 {
			continue
		}
		cpu, mem, ok := cpuMemory(l.list)
		if !ok {
			return false
		}
		w.body = append(w.body, fixed(appCall(l.method, jen.Lit(cpu), jen.Lit(mem))))
	}
	return true
}

// cpuMemory returns the CPU and memory quantities of a list that holds
// nothing else.
func cpuMemory(list corev1.ResourceList) (string, string, bool) {
	var cpu, mem string
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			cpu = q.String()
		case corev1.ResourceMemory:
			mem = q.String()
		default:
			return "", "", false
		}
	}
	return cpu, mem, true
}

// probe turns a readiness or liveness probe into Ready or Live of
// app.HTTPGet, app.TCP or app.Exec, with After and Every.
func (w *workload) probe(method string, p *corev1.Probe) bool {
	if p == nil {
		return true
	}
	h, ok := probeHandler(p.ProbeHandler)
	if !ok || *p != (corev1.Probe{ProbeHandler: p.ProbeHandler, InitialDelaySeconds: p.InitialDelaySeconds, PeriodSeconds: p.PeriodSeconds}) {
		return false
	}
	if p.InitialDelaySeconds != 0 {
		h = h.Dot("After").Call(jen.Lit(int(p.InitialDelaySeconds)))
	}
	if p.PeriodSeconds != 0 {
		h = h.Dot("Every").Call(jen.Lit(int(p.PeriodSeconds)))
	}
	w.body = append(w.body, fixed(appCall(method, h)))
	return true
}

// probeHandler recognises app.HTTPGet, app.TCP and app.Exec.
func probeHandler(h corev1.ProbeHandler) (*jen.Statement, bool) {
	switch {
	case h.HTTPGet != nil && h.TCPSocket == nil && h.Exec == nil && h.GRPC == nil:
		g := h.HTTPGet
		if g.Host != "" || g.Scheme != "" || len(g.HTTPHeaders) > 0 || !intPort(g.Port) {
			return nil, false
		}
		return appCall("HTTPGet", jen.Lit(g.Path), jen.Lit(int(g.Port.IntVal))), true
	case h.TCPSocket != nil && h.HTTPGet == nil && h.Exec == nil && h.GRPC == nil:
		if h.TCPSocket.Host != "" || !intPort(h.TCPSocket.Port) {
			return nil, false
		}
		return appCall("TCP", jen.Lit(int(h.TCPSocket.Port.IntVal))), true
	case h.Exec != nil && h.HTTPGet == nil && h.TCPSocket == nil && h.GRPC == nil && len(h.Exec.Command) > 0:
		return appCall("Exec", strs(h.Exec.Command)...), true
	}
	return nil, false
}

// intPort reports whether p is a port number in range.
func intPort(p intstr.IntOrString) bool {
	return p.Type == intstr.Int && p.IntVal >= 1 && p.IntVal <= 65535
}
