package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probe is a container check made with HTTPGet, TCP, GRPC or Exec (or
// their Named forms) and used with Ready, Live and Startup, or as a
// lifecycle hook with PreStop and PostStart. Its methods return a copy
// with one more setting. Its zero value is not a valid probe.
type Probe struct {
	p    corev1.Probe
	hint string
	err  string
}

// HTTPGet probes with an HTTP GET of path on port; any status from 200 to
// 399 passes.
func HTTPGet(path string, port int) Probe {
	return Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(int32(port))}}},
		hint: fmt.Sprintf("http GET :%d%s", port, path),
		err:  portError(port),
	}
}

// HTTPGetNamed is HTTPGet on a named container port ("http").
func HTTPGetNamed(path, port string) Probe {
	return Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port)}}},
		hint: fmt.Sprintf("http GET :%s%s", port, path),
		err:  portNameError(port),
	}
}

// TCP probes by opening a TCP connection to port.
func TCP(port int) Probe {
	return Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}}},
		hint: fmt.Sprintf("tcp :%d", port),
		err:  portError(port),
	}
}

// TCPNamed is TCP on a named container port.
func TCPNamed(port string) Probe {
	return Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString(port)}}},
		hint: "tcp :" + port,
		err:  portNameError(port),
	}
}

// GRPC probes with the gRPC health checking protocol on port.
func GRPC(port int) Probe {
	return Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: int32(port)}}},
		hint: fmt.Sprintf("grpc :%d", port),
		err:  portError(port),
	}
}

// Exec probes by running cmd in the container; exit status 0 passes.
func Exec(cmd ...string) Probe {
	p := Probe{
		p:    corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: append([]string(nil), cmd...)}}},
		hint: "exec " + strings.Join(cmd, " "),
	}
	if len(cmd) == 0 {
		p.err = "exec probe needs a command"
	}
	return p
}

func portNameError(name string) string {
	if name == "" {
		return "port name is empty"
	}
	return ""
}

// After returns the probe waiting seconds after the container starts before
// probing.
func (p Probe) After(seconds int32) Probe {
	p.p.InitialDelaySeconds = seconds
	return p.check(seconds >= 0, "initial delay must not be negative")
}

// Every returns the probe running every seconds instead of Kubernetes'
// default of 10.
func (p Probe) Every(seconds int32) Probe {
	p.p.PeriodSeconds = seconds
	return p.check(seconds >= 1, "period must be at least 1 second")
}

// Timeout returns the probe failing after seconds without an answer
// instead of Kubernetes' default of 1.
func (p Probe) Timeout(seconds int32) Probe {
	p.p.TimeoutSeconds = seconds
	return p.check(seconds >= 1, "timeout must be at least 1 second")
}

// FailureThreshold returns the probe counting as failed after n failures
// in a row instead of Kubernetes' default of 3.
func (p Probe) FailureThreshold(n int32) Probe {
	p.p.FailureThreshold = n
	return p.check(n >= 1, "failure threshold must be at least 1")
}

// SuccessThreshold returns the probe counting as passed after n successes
// in a row (only a readiness probe may need more than 1).
func (p Probe) SuccessThreshold(n int32) Probe {
	p.p.SuccessThreshold = n
	return p.check(n >= 1, "success threshold must be at least 1")
}

// HTTPS returns an HTTPGet probe that speaks HTTPS (without verifying the
// certificate).
func (p Probe) HTTPS() Probe { return p.scheme(corev1.URISchemeHTTPS) }

// HTTP returns an HTTPGet probe that writes scheme: HTTP explicitly (the
// default).
func (p Probe) HTTP() Probe { return p.scheme(corev1.URISchemeHTTP) }

func (p Probe) scheme(s corev1.URIScheme) Probe {
	if p.p.HTTPGet == nil {
		return p.check(false, "a scheme applies to an HTTP GET probe")
	}
	p.p.HTTPGet = p.p.HTTPGet.DeepCopy()
	p.p.HTTPGet.Scheme = s
	return p
}

// Header returns an HTTPGet probe that sends one more request header.
func (p Probe) Header(name, value string) Probe {
	if p.p.HTTPGet == nil {
		return p.check(false, "a header applies to an HTTP GET probe")
	}
	p.p.HTTPGet = p.p.HTTPGet.DeepCopy()
	p.p.HTTPGet.HTTPHeaders = append(p.p.HTTPGet.HTTPHeaders, corev1.HTTPHeader{Name: name, Value: value})
	return p.check(name != "", "a header needs a name")
}

// check records msg as the probe's problem unless ok (or it has one).
func (p Probe) check(ok bool, msg string) Probe {
	if !ok && p.err == "" {
		p.err = msg
	}
	return p
}

// Ready sets the readiness probe: traffic reaches a pod, and Piceli counts
// the workload ready, only once it passes.
func Ready(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.checkProbe("readiness", p) {
			w.cur.c.ReadinessProbe, w.cur.ready = p.probe(), &p
		}
	})
}

// Live sets the liveness probe: Kubernetes restarts a container that fails it.
func Live(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.checkProbe("liveness", p) {
			w.cur.c.LivenessProbe = p.probe()
		}
	})
}

// Startup sets the startup probe: the other probes wait until it passes,
// for a container that starts slowly.
func Startup(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.checkProbe("startup", p) {
			w.cur.c.StartupProbe = p.probe()
		}
	})
}

func (w *Workload) checkProbe(field string, p Probe) bool {
	switch {
	case p.hint == "":
		w.fail("%s probe is empty (use app.HTTPGet, app.TCP, app.GRPC or app.Exec)", field)
	case p.err != "":
		w.fail("%s probe: %s", field, p.err)
	default:
		return true
	}
	return false
}

// probe returns a copy of the Kubernetes probe.
func (p Probe) probe() *corev1.Probe { return p.p.DeepCopy() }

// PreStop runs the check's action (Exec, HTTPGet or TCP, without timing)
// before the container is stopped, to let it drain.
func PreStop(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if h, ok := w.hook("pre-stop", p); ok {
			w.lifecycle().PreStop = h
		}
	})
}

// PostStart runs the check's action (Exec, HTTPGet or TCP, without
// timing) right after the container starts.
func PostStart(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if h, ok := w.hook("post-start", p); ok {
			w.lifecycle().PostStart = h
		}
	})
}

// lifecycle returns the current container's lifecycle, made on first use.
func (w *Workload) lifecycle() *corev1.Lifecycle {
	if w.cur.c.Lifecycle == nil {
		w.cur.c.Lifecycle = &corev1.Lifecycle{}
	}
	return w.cur.c.Lifecycle
}

// hook turns a probe into a lifecycle handler.
func (w *Workload) hook(field string, p Probe) (*corev1.LifecycleHandler, bool) {
	h := p.p.ProbeHandler
	timed := p.p != corev1.Probe{ProbeHandler: h}
	switch {
	case p.hint == "" || p.err != "":
		w.checkProbe(field+" hook", p)
	case h.GRPC != nil:
		w.fail("%s hook cannot be a gRPC check", field)
	case timed:
		w.fail("%s hook takes no timing (After, Every, Timeout, thresholds)", field)
	default:
		return &corev1.LifecycleHandler{Exec: h.Exec, HTTPGet: h.HTTPGet, TCPSocket: h.TCPSocket}, true
	}
	return nil, false
}
