package app

import corev1 "k8s.io/api/core/v1"

// Sidecar adds a container that runs beside the main one for the pod's
// life, configured by container options (Image, Command, Args, ports, Env*,
// Requests, Limits, probes, Mount, SecurityContext, PreStop, ...); pod
// options (Replicas, Selector, Affinity, ...) are refused inside it. Its
// ports count among the workload's, so a Service may expose them. Sidecars
// follow the main container in declaration order.
func Sidecar(name string, opts ...WorkloadOption) WorkloadOption {
	return workloadOption(func(w *Workload) { w.addContainer(&w.sidecars, "sidecar", name, opts) })
}

// InitContainer adds a container that runs to completion before the pod's
// other containers start, in declaration order; it takes the options
// Sidecar takes. Its ports are not the workload's.
func InitContainer(name string, opts ...WorkloadOption) WorkloadOption {
	return workloadOption(func(w *Workload) { w.addContainer(&w.inits, "init container", name, opts) })
}

// addContainer applies opts to a new container of role and appends it to
// list.
func (w *Workload) addContainer(list *[]*container, role, name string, opts []WorkloadOption) {
	if !w.podOption(upperFirstWord(role)) {
		return
	}
	c := &container{role: role, c: corev1.Container{Name: name}}
	if msg := dnsLabel(name); msg != "" {
		w.fail("%s %q: name must be a %s", role, name, msg)
	}
	w.cur = c
	for _, o := range opts {
		if o != nil {
			o.applyWorkload(w)
		}
	}
	w.cur = w.main
	*list = append(*list, c)
}

// upperFirstWord names an option after a role: "sidecar" -> "Sidecar",
// "init container" -> "InitContainer".
func upperFirstWord(role string) string {
	if role == "init container" {
		return "InitContainer"
	}
	return "Sidecar"
}
