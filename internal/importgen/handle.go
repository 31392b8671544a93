package importgen

import (
	"slices"

	"github.com/dave/jennifer/jen"
)

// handle is a builder object other builder calls refer to: a workload, a
// ConfigMap, a Secret, a claim, a service account, a role or a service.
type handle struct {
	kind, name string
	ident      string   // its variable, set by output
	used       bool     // another call refers to it
	keys       []string // ConfigMap and Secret keys
	ports      []port   // workload and Service ports
	replicas   bool     // a workload that sets its replicas
	// selector and podLabels are a workload's: what selects its pods and
	// what they carry.
	selector, podLabels map[string]string
}

// port is a declared container or Service port.
type port struct {
	name     string
	number   int32
	protocol string // "TCP" when none is written
}

// ref returns an expression naming h's variable once Build is written,
// and marks h used.
func (h *handle) ref() jen.Code {
	h.used = true
	return jen.Id(h.ident)
}

func (h *handle) hasKey(k string) bool { return slices.Contains(h.keys, k) }

// port returns the declared port numbered n.
func (h *handle) port(n int32) (port, bool) {
	for _, p := range h.ports {
		if p.number == n {
			return p, true
		}
	}
	return port{}, false
}

// namedPort returns the declared port named name.
func (h *handle) namedPort(name string) (port, bool) {
	for _, p := range h.ports {
		if p.name == name {
			return p, true
		}
	}
	return port{}, false
}

// handles are the builder objects by kind and name.
type handles map[string]*handle

func (hs handles) get(kind, name string) *handle { return hs[kind+"/"+name] }

func (hs handles) add(h *handle) { hs[h.kind+"/"+h.name] = h }

// workload returns the builder workload named name of any workload kind.
func (hs handles) workload(name string) *handle {
	for _, k := range workloadKinds {
		if h := hs.get(k, name); h != nil {
			return h
		}
	}
	return nil
}

var workloadKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}
