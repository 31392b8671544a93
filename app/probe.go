package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probe is a container health check made with HTTPGet, TCP or Exec and used
// with Ready or Live. Its zero value is not a valid probe.
type Probe struct {
	handler corev1.ProbeHandler
	hint    string
	err     string
	delay   int32
	period  int32
}

// HTTPGet probes with an HTTP GET of path on port; any status from 200 to
// 399 passes.
func HTTPGet(path string, port int) Probe {
	return Probe{
		handler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(int32(port)),
		}},
		hint: fmt.Sprintf("http GET :%d%s", port, path),
		err:  portError(port),
	}
}

// TCP probes by opening a TCP connection to port.
func TCP(port int) Probe {
	return Probe{
		handler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}},
		hint:    fmt.Sprintf("tcp :%d", port),
		err:     portError(port),
	}
}

// Exec probes by running cmd in the container; exit status 0 passes.
func Exec(cmd ...string) Probe {
	p := Probe{
		handler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: append([]string(nil), cmd...)}},
		hint:    "exec " + strings.Join(cmd, " "),
	}
	if len(cmd) == 0 {
		p.err = "exec probe needs a command"
	}
	return p
}

// After returns the probe waiting seconds after the container starts before
// probing.
func (p Probe) After(seconds int32) Probe {
	p.delay = seconds
	return p
}

// Every returns the probe running every seconds instead of Kubernetes'
// default of 10.
func (p Probe) Every(seconds int32) Probe {
	p.period = seconds
	return p
}

// Ready sets the readiness probe: traffic reaches a pod, and Piceli counts
// the workload ready, only once it passes.
func Ready(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) { w.ready = w.checkProbe("readiness", p) })
}

// Live sets the liveness probe: Kubernetes restarts a container that fails it.
func Live(p Probe) WorkloadOption {
	return workloadOption(func(w *Workload) { w.live = w.checkProbe("liveness", p) })
}

func (w *Workload) checkProbe(field string, p Probe) *Probe {
	switch {
	case p.hint == "":
		w.fail("%s probe is empty (use app.HTTPGet, app.TCP or app.Exec)", field)
	case p.err != "":
		w.fail("%s probe: %s", field, p.err)
	}
	return &p
}

// probe returns the Kubernetes probe.
func (p Probe) probe() *corev1.Probe {
	return &corev1.Probe{ProbeHandler: p.handler, InitialDelaySeconds: p.delay, PeriodSeconds: p.period}
}
