package observe

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/readiness"
)

// StatusSchema versions a Report document.
const StatusSchema = "piceli.observe-status/v1"

// State is where one object stands between the archive and the cluster.
// Its values are stable: they are printed as JSON.
type State string

// The states.
const (
	// Present: declared by the archive and in the cluster.
	Present State = "present"
	// Missing: declared by the archive, absent from the cluster.
	Missing State = "missing"
	// Undeclared: in one of the archive's namespaces, of a kind the
	// archive declares or of one of CommonKinds, but not in the archive.
	// Information only: never permission to adopt or delete it.
	Undeclared State = "undeclared"
	// Unknown: the lens may not read objects of its kind there.
	Unknown State = "unknown"
)

// ObjectStatus is one object's state and, when present, readiness.
type ObjectStatus struct {
	Object    string     `json:"object"` // Kind/namespace/name
	Ref       object.Ref `json:"ref"`
	State     State      `json:"state"`
	Readiness string     `json:"readiness,omitempty"` // current, in-progress, failed, unknown
	Message   string     `json:"message,omitempty"`
	// Edits are the writes to a present object after the run ended by
	// managers that updated rather than applied it (kubectl edit): drift.
	Edits []Edit `json:"edits,omitempty"`
}

// Session is what a Report says of the archive it reconciled.
type Session struct {
	Run      string `json:"run"`
	Release  string `json:"release"`
	Plan     string `json:"plan"`
	Revision int    `json:"revision,omitempty"`
	Status   string `json:"status"`
	Started  string `json:"started"`
	Ended    string `json:"ended"`
	// Server, Context, Namespace and ClusterUID are the archive's target.
	Server     string   `json:"server"`
	Context    string   `json:"context"`
	Namespace  string   `json:"namespace"`
	Namespaces []string `json:"namespaces"`
	ClusterUID string   `json:"clusterUID"`
}

// ClusterInfo is the cluster a Report read.
type ClusterInfo struct {
	Server     string `json:"server"`
	Context    string `json:"context"`
	ClusterUID string `json:"clusterUID,omitempty"` // empty when it could not be read
	// Same says whether it is the archive's cluster (same kube-system UID).
	Same    bool   `json:"same"`
	Message string `json:"message,omitempty"` // what a person must know about it
}

// Report is the reconciliation of a session archive with a cluster.
type Report struct {
	Schema  string         `json:"schema"`
	Session Session        `json:"session"`
	Cluster ClusterInfo    `json:"cluster"`
	Objects []ObjectStatus `json:"objects"`
	Counts  map[State]int  `json:"counts"`
	// Unreadable lists the kinds and namespaces the lens may not list.
	Unreadable []string `json:"unreadable,omitempty"`
	// Edited counts the present objects someone edited since the run
	// (ObjectStatus.Edits).
	Edited int `json:"edited,omitempty"`
}

// Healthy reports whether the cluster is the archive's and every declared
// object is present and ready.
func (r *Report) Healthy() bool {
	if !r.Cluster.Same {
		return false
	}
	for _, o := range r.Objects {
		if o.State == Missing || o.State == Unknown || (o.State == Present && o.Readiness != string(readiness.Current)) {
			return false
		}
	}
	return true
}

// Listing is what one LIST of a kind in a namespace (empty: cluster
// scope) found, or that it was forbidden.
type Listing struct {
	Kind      Kind
	Namespace string
	// MetadataOnly says the LIST read names, owners and labels only
	// (PartialObjectMetadataList): a kind the archive does not declare,
	// whose objects can only be undeclared.
	MetadataOnly bool
	Forbidden    bool
	Items        []*unstructured.Unstructured
}

// Kind is an API kind the archive declares, with the resource that lists it.
type Kind struct {
	Group, Version, Resource, Kind string
}

// Reconcile compares the archive's declared objects with what the listings
// found. It is pure and deterministic: objects are sorted by reference.
// Only namespaced listings yield undeclared objects. Objects a controller
// owns (with an owner reference), the objects the control plane makes in
// every namespace (ConfigMap kube-root-ca.crt, ServiceAccount default) and
// the claims a listed StatefulSet's controller makes from its volume claim
// templates (TEMPLATE-SET-ORDINAL) are never reported undeclared.
func Reconcile(a *Archive, cl ClusterInfo, listings []Listing) *Report {
	r := &Report{Schema: StatusSchema, Session: sessionOf(a), Cluster: cl, Counts: map[State]int{}}
	declared := map[object.Ref]bool{}
	for _, o := range a.Objects {
		if o.Declared {
			declared[o.Ref] = true
		}
	}
	live := map[object.Ref]*unstructured.Unstructured{}
	forbidden := map[[2]string]bool{}
	made := templateClaims(listings)
	for _, l := range listings {
		if l.Forbidden {
			forbidden[[2]string{l.Kind.Group + "/" + l.Kind.Kind, l.Namespace}] = true
			r.Unreadable = append(r.Unreadable, unreadable(l))
			continue
		}
		for _, u := range l.Items {
			ref := object.Ref{Group: l.Kind.Group, Kind: l.Kind.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
			live[ref] = u
			if l.Namespace != "" && !declared[ref] && !ignored(u, ref) && !made(ref) {
				r.add(ObjectStatus{Ref: ref, State: Undeclared})
			}
		}
	}
	for ref := range declared {
		u, ok := live[ref]
		switch {
		case ok:
			res := readiness.Compute(u)
			r.add(ObjectStatus{Ref: ref, State: Present, Readiness: string(res.Status), Message: res.Message, Edits: editsOf(u, a.Ended)})
		case forbidden[[2]string{ref.Group + "/" + ref.Kind, ref.Namespace}]:
			r.add(ObjectStatus{Ref: ref, State: Unknown, Message: "no permission to read it"})
		default:
			r.add(ObjectStatus{Ref: ref, State: Missing})
		}
	}
	slices.SortFunc(r.Objects, func(x, y ObjectStatus) int { return cmp.Compare(x.Object, y.Object) })
	for _, o := range r.Objects {
		if len(o.Edits) > 0 {
			r.Edited++
		}
	}
	slices.Sort(r.Unreadable)
	return r
}

func (r *Report) add(o ObjectStatus) {
	o.Object = o.Ref.String()
	r.Objects = append(r.Objects, o)
	r.Counts[o.State]++
}

func unreadable(l Listing) string {
	if l.Namespace == "" {
		return l.Kind.Kind + " (cluster scope)"
	}
	return l.Kind.Kind + " in namespace " + l.Namespace
}

// ignored reports whether an undeclared object is the cluster's own doing.
func ignored(u *unstructured.Unstructured, ref object.Ref) bool {
	if len(u.GetOwnerReferences()) > 0 {
		return true
	}
	switch {
	case ref.Group == "" && ref.Kind == "ConfigMap" && ref.Name == "kube-root-ca.crt",
		ref.Group == "" && ref.Kind == "ServiceAccount" && ref.Name == "default":
		return true
	}
	return false
}

func sessionOf(a *Archive) Session {
	const layout = "2006-01-02T15:04:05Z07:00"
	return Session{Run: a.Run, Release: a.Release, Plan: a.Plan, Revision: a.Revision, Status: a.Status,
		Started: a.Started.UTC().Format(layout), Ended: a.Ended.UTC().Format(layout),
		Server: a.Target.Server, Context: a.Target.Context, Namespace: a.Target.Namespace,
		Namespaces: a.Namespaces, ClusterUID: a.Target.ClusterUID}
}
