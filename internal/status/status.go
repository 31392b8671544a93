package status

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/readiness"
	pub "github.com/pynenc/piceli/status"
)

// Missing is the Status of a declared object the cluster does not have.
const Missing = pub.Missing

// Declared is one object of the release: what status is asked about.
type Declared struct {
	Ref object.Ref
	GVR schema.GroupVersionResource
}

// Live is what the cluster holds, as the caller read it.
type Live struct {
	// Objects holds each declared object found, by reference.
	Objects map[object.Ref]*unstructured.Unstructured
	// Pods and Claims hold every pod and PersistentVolumeClaim of the
	// namespaces that have workloads.
	Pods   map[string][]corev1.Pod
	Claims map[string][]corev1.PersistentVolumeClaim
	// Unread says, by kind and namespace ("Deployment/shop"), why a LIST
	// failed; the objects there are unknown, not missing.
	Unread map[string]string
}

// The status records live in the public package status, where users read
// them.
type (
	Object      = pub.Object
	Replicas    = pub.Replicas
	Service     = pub.Service
	ServicePort = pub.ServicePort
	Ingress     = pub.Ingress
)

// Report is Compute's answer.
type Report struct {
	Ready     bool      `json:"ready"`
	Summary   string    `json:"summary"` // "12 of 13 objects ready"
	Objects   []Object  `json:"objects"`
	Services  []Service `json:"services"`
	Ingresses []Ingress `json:"ingresses"`
}

// Compute tells the status of each declared object, in the order given,
// from live, and lists the Services and Ingresses found among them. The
// release is ready when every object is current. It does no I/O.
func Compute(declared []Declared, live Live) Report {
	rep := Report{Objects: []Object{}, Services: []Service{}, Ingresses: []Ingress{}}
	ready := 0
	for _, d := range declared {
		u := live.Objects[d.Ref]
		o := objectStatus(d, u, live)
		if o.Ready {
			ready++
		}
		rep.Objects = append(rep.Objects, o)
		switch {
		case u == nil:
		case d.Ref.Group == "" && d.Ref.Kind == "Service":
			rep.Services = append(rep.Services, service(u))
		case d.Ref.Group == "networking.k8s.io" && d.Ref.Kind == "Ingress":
			rep.Ingresses = append(rep.Ingresses, ingress(u))
		}
	}
	rep.Ready = ready == len(declared)
	rep.Summary = fmt.Sprintf("%d of %d objects ready", ready, len(declared))
	return rep
}

// objectStatus is the status of one declared object.
func objectStatus(d Declared, u *unstructured.Unstructured, live Live) Object {
	o := Object{Ref: d.Ref.String(), Kind: d.Ref.Kind, Namespace: d.Ref.Namespace, Name: d.Ref.Name}
	if u == nil {
		o.Status, o.Message = Missing, "not found in the cluster"
		if why, ok := live.Unread[d.Ref.Kind+"/"+d.Ref.Namespace]; ok {
			o.Status, o.Message = string(readiness.Unknown), "list failed: "+why
		}
		return o
	}
	res := readiness.Compute(u)
	o.Status, o.Message, o.Ready = string(res.Status), res.Message, res.Status == readiness.Current
	o.Replicas = replicas(u)
	if !o.Ready {
		o.Reasons = reasons(u, live)
	}
	return o
}
