package importgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// containerRole says which container options are being read for.
type containerRole int

const (
	mainContainer containerRole = iota
	sidecarContainer
	initContainer
)

// takeContainer claims one container into o: its name (the main one's
// when it is not the workload's), image, command, args, pull policy,
// working directory, ports, env, resources, probes, hooks, security
// context and mounts. path is its JSON path in the pod spec, for the
// explicit zero values Mount's ReadWrite writes. Fields no option takes
// stay for an Edit.
func (g *gen) takeContainer(w *workload, o *options, c *corev1.Container, role containerRole, path string) string {
	if role == mainContainer && c.Name != w.name {
		if !validLabel(c.Name) {
			return fmt.Sprintf("container %q is not a DNS-1123 label", c.Name)
		}
		o.add(appCall("ContainerName", jen.Lit(c.Name)))
	}
	c.Name = ""
	if c.Image == "" {
		return "a container has no image"
	}
	img := o.value(g, g.image(c.Image))
	o.addOpt(func() jen.Code { return appCall("Image", img()) })
	if len(c.Command) > 0 {
		o.add(appCall("Command", strs(c.Command)...))
	}
	if len(c.Args) > 0 {
		o.add(appCallLong("Args", strs(c.Args)...))
	}
	c.Image, c.Command, c.Args = "", nil, nil
	return firstOf("",
		func() string { takePullAndDir(o, c); return g.ports(w, o, c, role) },
		func() string { return g.env(o, c) },
		func() string { g.envFrom(o, c); takeResources(o, c); takeProbes(o, c); g.takeSecurity(o, c); return "" },
		func() string { return g.mounts(w, o, c, w.d.zeroPaths(w.podPath()+"."+path)) })
}

// takePullAndDir claims the pull policy and working directory.
func takePullAndDir(o *options, c *corev1.Container) {
	if p := c.ImagePullPolicy; slices.Contains([]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}, p) {
		o.add(appCall("ImagePullPolicy", jen.Lit(string(p))))
		c.ImagePullPolicy = ""
	}
	if d := c.WorkingDir; strings.HasPrefix(d, "/") {
		o.add(appCall("WorkingDir", jen.Lit(d)))
		c.WorkingDir = ""
	}
}

// takeSecurity claims the security context, shared with other containers
// through a helper function when they have the same.
func (g *gen) takeSecurity(o *options, c *corev1.Container) {
	if sc := c.SecurityContext; sc != nil {
		if s, ok := g.helperValue(sc, "containerSecurity"); ok {
			v := o.value(g, s)
			o.addOpt(func() jen.Code { return appCallLong("SecurityContext", v()) })
			c.SecurityContext = nil
		}
	}
}

func strs(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = str(s)
	}
	return out
}

// ports claims container ports as Ports, NamedPort, ContainerPort and
// UDPPort, with their protocol and host port, in order: consecutive
// unnamed TCP ports without more share one Ports.
func (g *gen) ports(w *workload, o *options, c *corev1.Container, role containerRole) string {
	var run []jen.Code
	flush := func() {
		if len(run) > 0 {
			o.add(appCall("Ports", run...))
			run = nil
		}
	}
	for _, p := range c.Ports {
		if why := g.portProblem(w, p); why != "" {
			return why
		}
		if role != initContainer {
			w.ports = append(w.ports, port{name: p.Name, number: p.ContainerPort, protocol: protocolOf(p.Protocol)})
		}
		if p.Name == "" && p.Protocol == "" && p.HostPort == 0 && p.HostIP == "" {
			run = append(run, jen.Lit(int(p.ContainerPort)))
			continue
		}
		flush()
		o.add(containerPort(p))
	}
	flush()
	c.Ports = nil
	return ""
}

// portProblem mirrors the checks of the container port options.
func (g *gen) portProblem(w *workload, p corev1.ContainerPort) string {
	switch {
	case p.ContainerPort < 1 || p.ContainerPort > 65535 || p.HostPort < 0 || p.HostPort > 65535:
		return fmt.Sprintf("container port %d or its host port is out of range", p.ContainerPort)
	case p.Name != "" && len(validation.IsValidPortName(p.Name)) > 0:
		return fmt.Sprintf("port name %q is not an IANA service name", p.Name)
	case p.HostIP != "" && len(validation.IsValidIP(nil, p.HostIP)) > 0:
		return fmt.Sprintf("host IP %q is not an IP address", p.HostIP)
	case !slices.Contains([]corev1.Protocol{"", corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}, p.Protocol):
		return fmt.Sprintf("protocol %q is not TCP, UDP or SCTP", p.Protocol)
	case slices.ContainsFunc(w.ports, func(x port) bool { return x.number == p.ContainerPort || (p.Name != "" && x.name == p.Name) }):
		return fmt.Sprintf("container port %d (%q) is declared twice in the pod", p.ContainerPort, p.Name)
	}
	return ""
}

// containerPort writes one port that Ports cannot say.
func containerPort(p corev1.ContainerPort) jen.Code {
	var c *jen.Statement
	switch {
	case p.Name != "":
		c = appCall("NamedPort", jen.Lit(p.Name), jen.Lit(int(p.ContainerPort)))
	case p.Protocol == corev1.ProtocolUDP && p.HostPort == 0 && p.HostIP == "":
		return appCall("UDPPort", jen.Lit(int(p.ContainerPort)))
	default:
		c = appCall("ContainerPort", jen.Lit(int(p.ContainerPort)))
	}
	if p.Protocol != "" {
		c = c.Dot(string(p.Protocol)).Call()
	}
	if p.HostPort != 0 {
		c = c.Dot("Host").Call(jen.Lit(int(p.HostPort)))
	}
	if p.HostIP != "" {
		c = c.Dot("HostIP").Call(jen.Lit(p.HostIP))
	}
	return c
}

func protocolOf(p corev1.Protocol) string {
	if p == "" {
		return string(corev1.ProtocolTCP)
	}
	return string(p)
}

// env claims every environment variable as Env, EnvFromConfig,
// EnvFromSecret, EnvFromField or EnvFromResource; details those options do
// not write (a field reference's apiVersion) stay for an Edit.
func (g *gen) env(o *options, c *corev1.Container) string {
	var seen []string
	for i := range c.Env {
		v := &c.Env[i]
		if len(validation.IsEnvVarName(v.Name)) > 0 || slices.Contains(seen, v.Name) {
			return fmt.Sprintf("environment variable %q is not a valid name or is declared twice", v.Name)
		}
		seen = append(seen, v.Name)
		if why := g.envVar(o, v); why != "" {
			return why
		}
	}
	return ""
}

// envVar claims one environment variable.
func (g *gen) envVar(o *options, v *corev1.EnvVar) string {
	name, src := jen.Lit(v.Name), v.ValueFrom
	switch {
	case src == nil:
		o.add(appCall("Env", name, str(v.Value)))
	case v.Value != "":
		return fmt.Sprintf("environment variable %q has both a value and a source", v.Name)
	case src.ConfigMapKeyRef != nil:
		r := src.ConfigMapKeyRef
		o.addOpt(g.keyRef(o, "EnvFromConfig", "ConfigMap", name, r.Name, r.Key, r.Optional))
		src.ConfigMapKeyRef = nil
	case src.SecretKeyRef != nil:
		r := src.SecretKeyRef
		o.addOpt(g.keyRef(o, "EnvFromSecret", "Secret", name, r.Name, r.Key, r.Optional))
		src.SecretKeyRef = nil
	case src.FieldRef != nil && src.FieldRef.FieldPath != "":
		o.add(appCall("EnvFromField", name, jen.Lit(src.FieldRef.FieldPath)))
		src.FieldRef.FieldPath = ""
	case src.ResourceFieldRef != nil && src.ResourceFieldRef.Resource != "":
		o.add(appCall("EnvFromResource", name, jen.Lit(src.ResourceFieldRef.Resource)))
		src.ResourceFieldRef.Resource = ""
	default:
		return fmt.Sprintf("environment variable %q has a source no option reads", v.Name)
	}
	v.Name, v.Value = "", ""
	return ""
}

// keyRef writes EnvFromConfig or EnvFromSecret: of the builder handle
// when it has the key (or the key is optional), else of a reference by
// name.
func (g *gen) keyRef(o *options, method, kind string, name jen.Code, object, key string, optional *bool) option {
	ref := g.objectRef(o, kind, object, func(h *handle) bool { return h.hasKey(key) || (optional != nil && *optional) })
	return func() jen.Code {
		c := appCall(method, name, ref(), jen.Lit(key))
		switch {
		case optional == nil:
		case *optional:
			c = c.Dot("Optional").Call()
		default:
			c = c.Dot("Required").Call()
		}
		return c
	}
}

// objectRef refers to the ConfigMap, Secret, claim or service account
// named name: its builder handle when ok accepts it, else app.<Kind>Ref.
func (g *gen) objectRef(o *options, kind, name string, ok func(*handle) bool) func() jen.Code {
	if h := g.handles.get(kind, name); h != nil && (ok == nil || ok(h)) {
		return o.ref(h)
	}
	fn := map[string]string{"ConfigMap": "ConfigMapRef", "Secret": "SecretRef", "PersistentVolumeClaim": "ClaimRef", "ServiceAccount": "ServiceAccountRef"}[kind]
	return lit(appCall(fn, jen.Lit(name)))
}

// envFrom claims envFrom sources as EnvFromAll; an explicit optional:
// false stays for an Edit.
func (g *gen) envFrom(o *options, c *corev1.Container) {
	for i := range c.EnvFrom {
		e := &c.EnvFrom[i]
		var ref func() jen.Code
		var optional **bool
		switch {
		case e.ConfigMapRef != nil && validSubdomain(e.ConfigMapRef.Name):
			ref, optional = g.objectRef(o, "ConfigMap", e.ConfigMapRef.Name, nil), &e.ConfigMapRef.Optional
			e.ConfigMapRef.Name = ""
		case e.SecretRef != nil && validSubdomain(e.SecretRef.Name):
			ref, optional = g.objectRef(o, "Secret", e.SecretRef.Name, nil), &e.SecretRef.Optional
			e.SecretRef.Name = ""
		default:
			continue
		}
		prefix, opt := e.Prefix, *optional != nil && **optional
		if opt {
			*optional = nil
		}
		e.Prefix = ""
		o.addOpt(func() jen.Code {
			c := appCall("EnvFromAll", ref())
			if prefix != "" {
				c = c.Dot("Prefix").Call(jen.Lit(prefix))
			}
			if opt {
				c = c.Dot("Optional").Call()
			}
			return c
		})
	}
}

// takeResources claims CPU and memory requests and limits as Requests
// and Limits, other resources as Request and Limit.
func takeResources(o *options, c *corev1.Container) {
	for _, l := range []struct {
		pair, single string
		list         *corev1.ResourceList
	}{{"Requests", "Request", &c.Resources.Requests}, {"Limits", "Limit", &c.Resources.Limits}} {
		list := *l.list
		cpu, mem := list[corev1.ResourceCPU], list[corev1.ResourceMemory]
		_, hasCPU := list[corev1.ResourceCPU]
		_, hasMem := list[corev1.ResourceMemory]
		if hasCPU || hasMem {
			o.add(appCall(l.pair, jen.Lit(quantityOr(hasCPU, cpu.String())), jen.Lit(quantityOr(hasMem, mem.String()))))
		}
		for _, name := range sortedResources(list) {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				q := list[name]
				o.add(appCall(l.single, jen.Lit(string(name)), jen.Lit(q.String())))
			}
		}
		*l.list = nil
	}
}

func quantityOr(ok bool, q string) string {
	if ok {
		return q
	}
	return ""
}

func sortedResources(list corev1.ResourceList) []corev1.ResourceName {
	var names []corev1.ResourceName
	for n := range list {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// takeProbes claims the readiness, liveness and startup probes and the
// lifecycle hooks that options write.
func takeProbes(o *options, c *corev1.Container) {
	for _, p := range []struct {
		method string
		probe  **corev1.Probe
	}{{"Ready", &c.ReadinessProbe}, {"Live", &c.LivenessProbe}, {"Startup", &c.StartupProbe}} {
		if code, ok := takeProbe(*p.probe); ok {
			o.add(appCall(p.method, code))
		}
	}
	if lc := c.Lifecycle; lc != nil {
		for _, h := range []struct {
			method  string
			handler **corev1.LifecycleHandler
		}{{"PostStart", &lc.PostStart}, {"PreStop", &lc.PreStop}} {
			if code, ok := takeHook(*h.handler); ok {
				o.add(appCall(h.method, code))
			}
		}
	}
}

// takeProbe writes a probe as app.HTTPGet, app.TCP, app.GRPC or app.Exec
// (or a Named form) with its settings, clearing what it wrote; a host, a
// gRPC service or a termination grace stay for an Edit.
func takeProbe(p *corev1.Probe) (*jen.Statement, bool) {
	if p == nil {
		return nil, false
	}
	code, ok := takeHandler(&p.ProbeHandler)
	if !ok {
		return nil, false
	}
	for _, t := range []struct {
		method string
		v      *int32
		min    int32
	}{{"After", &p.InitialDelaySeconds, 1}, {"Every", &p.PeriodSeconds, 1}, {"Timeout", &p.TimeoutSeconds, 1},
		{"FailureThreshold", &p.FailureThreshold, 1}, {"SuccessThreshold", &p.SuccessThreshold, 1}} {
		if *t.v >= t.min {
			code = code.Dot(t.method).Call(jen.Lit(int(*t.v)))
			*t.v = 0
		}
	}
	return code, true
}

// takeHandler writes the action of a probe or hook.
func takeHandler(h *corev1.ProbeHandler) (*jen.Statement, bool) {
	switch {
	case h.HTTPGet != nil && h.TCPSocket == nil && h.Exec == nil && h.GRPC == nil:
		return takeHTTPGet(h.HTTPGet)
	case h.TCPSocket != nil && h.HTTPGet == nil && h.Exec == nil && h.GRPC == nil:
		code, ok := portCall("TCP", nil, h.TCPSocket.Port)
		if ok {
			h.TCPSocket.Port = intstr.IntOrString{}
		}
		return code, ok
	case h.GRPC != nil && h.HTTPGet == nil && h.TCPSocket == nil && h.Exec == nil && h.GRPC.Port >= 1 && h.GRPC.Port <= 65535:
		code := appCall("GRPC", jen.Lit(int(h.GRPC.Port)))
		h.GRPC.Port = 0
		return code, true
	case h.Exec != nil && h.HTTPGet == nil && h.TCPSocket == nil && h.GRPC == nil && len(h.Exec.Command) > 0:
		code := appCallLong("Exec", strs(h.Exec.Command)...)
		h.Exec.Command = nil
		return code, true
	}
	return nil, false
}

// takeHTTPGet writes an HTTP GET action with its scheme and headers.
func takeHTTPGet(g *corev1.HTTPGetAction) (*jen.Statement, bool) {
	code, ok := portCall("HTTPGet", jen.Lit(g.Path), g.Port)
	if !ok || slices.ContainsFunc(g.HTTPHeaders, func(h corev1.HTTPHeader) bool { return h.Name == "" }) {
		return nil, false
	}
	switch g.Scheme {
	case corev1.URISchemeHTTP:
		code = code.Dot("HTTP").Call()
	case corev1.URISchemeHTTPS:
		code = code.Dot("HTTPS").Call()
	case "":
	default:
		return nil, false
	}
	for _, h := range g.HTTPHeaders {
		code = code.Dot("Header").Call(jen.Lit(h.Name), str(h.Value))
	}
	g.Path, g.Port, g.Scheme, g.HTTPHeaders = "", intstr.IntOrString{}, "", nil
	return code, true
}

// portCall writes app.<fn>(args..., port) for a port number, or
// app.<fn>Named(args..., name) for a port name.
func portCall(fn string, arg jen.Code, p intstr.IntOrString) (*jen.Statement, bool) {
	var args []jen.Code
	if arg != nil {
		args = append(args, arg)
	}
	switch {
	case p.Type == intstr.Int && p.IntVal >= 1 && p.IntVal <= 65535:
		return appCall(fn, append(args, jen.Lit(int(p.IntVal)))...), true
	case p.Type == intstr.String && p.StrVal != "":
		return appCall(fn+"Named", append(args, jen.Lit(p.StrVal))...), true
	}
	return nil, false
}

// takeHook writes a lifecycle hook's action as app.Exec, app.HTTPGet or
// app.TCP.
func takeHook(h *corev1.LifecycleHandler) (*jen.Statement, bool) {
	if h == nil || h.Sleep != nil {
		return nil, false
	}
	ph := corev1.ProbeHandler{Exec: h.Exec, HTTPGet: h.HTTPGet, TCPSocket: h.TCPSocket}
	return takeHandler(&ph)
}
