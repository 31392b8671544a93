package release

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
)

// AccessEventKind says what a forward did.
type AccessEventKind string

// The kinds of AccessEvent.
const (
	AccessForwarding      AccessEventKind = "forwarding"       // a port is forwarded for the first time (Local, Pod)
	AccessReconnected     AccessEventKind = "reconnected"      // the forward moved to another pod (Pod, Previous, Reason)
	AccessWaiting         AccessEventKind = "waiting"          // the forward has no ready pod to go to (Reason); said once per reason
	AccessConnectionError AccessEventKind = "connection-error" // one local connection failed on the pod side (Port, Pod, Reason)
)

// AccessEvent is one thing a forward did; Kind says which fields are set.
type AccessEvent struct {
	Kind      AccessEventKind
	Namespace string         // the Service's namespace
	Service   string         // the Service forwarded
	Port      int32          // its service port
	PortName  string         // the port's name, when it has one
	Local     netip.AddrPort // where it is reachable on loopback
	Pod       string         // the pod the forward goes to
	Previous  string         // the pod a reconnect left
	Reason    string         // why it reconnected, waits or failed
}

// PortTakenError is a local port another process listens on: Access
// refuses it (a refusal, refusal.Is), naming the port and the
// Service.
type PortTakenError struct {
	Component string // the Service the forward is for
	Port      int32  // its service port
	Tried     []int  // the local ports tried, in order
	Explicit  bool   // the local port was asked for (AccessOptions.Ports)
}

func (e *PortTakenError) Error() string { return (*access.PortTakenError)(e).Error() }

// accessEvents passes the forwards' events to h as AccessEvent values;
// nil for a nil h.
func accessEvents(h func(AccessEvent)) func(access.Event) {
	if h == nil {
		return nil
	}
	return func(e access.Event) {
		h(AccessEvent{Kind: AccessEventKind(e.Kind), Namespace: e.Namespace, Service: e.Service, Port: e.Port,
			PortName: e.PortName, Local: e.Local, Pod: e.Pod, Previous: e.Previous, Reason: e.Reason})
	}
}

// AccessOptions tune Access. The zero value forwards every port of every
// Service of the release, at the default local ports.
type AccessOptions struct {
	// Only names the Services to forward; nil forwards all.
	Only []string
	// Ports asks for local ports, keyed by the Service ("web", for a
	// Service of one port) or the Service and a port's number or name
	// ("web:80", "web:http").
	Ports map[string]int
	// Events receives what the forwards do, one call at a time.
	Events func(AccessEvent)
	// Interval is how often each forward looks at its pod; zero means a
	// second.
	Interval time.Duration
}

// Access forwards the release's Service ports to 127.0.0.1 until ctx ends,
// then closes every listener and connection and returns nil once nothing
// of it is left running. The Services are those of the latest revision
// (before the first, the composition's). Each port is forwarded from the
// local port opts.Ports asks for, else the service port when it is 1024 or
// more and free, else the port plus 10000 (minus, past 65535); a local
// port that is taken is a refusal (refusal.Is) wrapping a *PortTakenError, and
// nothing is forwarded. Only loopback is ever bound. Each Service's
// forwards go to one ready pod of it and move to another ready pod when
// that one goes away (an AccessReconnected event).
func (r *Release) Access(ctx context.Context, opts AccessOptions) error {
	if err := r.checkOwner(); err != nil {
		return err
	}
	s, services, err := r.accessServices(ctx)
	if err != nil {
		return err
	}
	defer s.client.CloseIdle()
	reqs, err := accessRequests(services, opts)
	if err != nil {
		return refuse(err)
	}
	sess, err := access.Start(ctx, s.client.Config, s.client.Clientset, reqs, access.Options{Interval: opts.Interval, OnEvent: accessEvents(opts.Events)})
	if taken := new(access.PortTakenError); errors.As(err, &taken) {
		return refuse((*PortTakenError)(taken))
	}
	if err != nil {
		return err
	}
	<-ctx.Done()
	sess.Close()
	return nil
}

// accessServices connects and returns the release's Services.
func (r *Release) accessServices(ctx context.Context) (*session, []*unstructured.Unstructured, error) {
	rev, err := history.Latest(r.StateDir())
	if err != nil {
		return nil, nil, err
	}
	var s *session
	var objs []*unstructured.Unstructured
	if rev == nil {
		if s, err = r.open(ctx); err != nil {
			return nil, nil, err
		}
		for _, o := range s.objects {
			objs = append(objs, o.Object)
		}
	} else {
		s = &session{r: r}
		if err := s.connect(ctx); err != nil {
			return nil, nil, err
		}
		for _, o := range rev.Objects {
			objs = append(objs, &unstructured.Unstructured{Object: o.Manifest})
		}
	}
	var out []*unstructured.Unstructured
	for _, u := range objs {
		if ref := object.RefOf(u); ref.Group == "" && ref.Kind == "Service" {
			out = append(out, u)
		}
	}
	return s, out, nil
}

// accessRequests turns the Services into forward requests, keeping those
// opts.Only names and giving each port the local port opts.Ports asks for.
func accessRequests(services []*unstructured.Unstructured, opts AccessOptions) ([]access.Request, error) {
	var names []string
	for _, svc := range services {
		names = append(names, svc.GetName())
	}
	for _, n := range opts.Only {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("the release has no Service %q to forward (it has %s)", n, listOrNone(names))
		}
	}
	used := map[string]bool{}
	var reqs []access.Request
	for _, svc := range services {
		if opts.Only != nil && !slices.Contains(opts.Only, svc.GetName()) {
			continue
		}
		if req := accessRequest(svc, opts.Ports, used); len(req.Ports) > 0 {
			reqs = append(reqs, req)
		}
	}
	for key := range opts.Ports {
		if !used[key] {
			return nil, fmt.Errorf("a local port is asked for %s, which the release does not forward (name SERVICE, SERVICE:PORT or SERVICE:PORTNAME of %s)", key, listOrNone(names))
		}
	}
	return reqs, nil
}

// accessRequest is the request of one Service's ports.
func accessRequest(svc *unstructured.Unstructured, ports map[string]int, used map[string]bool) access.Request {
	req := access.Request{Namespace: svc.GetNamespace(), Service: svc.GetName()}
	list, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	for _, p := range list {
		m, _ := p.(map[string]any)
		num := number(m["port"])
		name, _, _ := unstructured.NestedString(m, "name")
		port := access.Port{Name: name, Port: int32(num)}
		keys := []string{svc.GetName() + ":" + strconv.Itoa(int(num))}
		if name != "" {
			keys = append(keys, svc.GetName()+":"+name)
		}
		if len(list) == 1 {
			keys = append(keys, svc.GetName())
		}
		for _, k := range keys {
			if local, ok := ports[k]; ok {
				port.Local, used[k] = local, true
			}
		}
		req.Ports = append(req.Ports, port)
	}
	return req
}

// number reads a port number as a manifest holds it: int64 as the API and
// the composition give it, float64 as a revision file decodes it.
func number(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return 0
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
