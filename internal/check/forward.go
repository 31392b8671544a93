package check

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	"github.com/pynenc/piceli/internal/access"
)

// forwards is an access session a check opened, and the pod-side errors
// its connections met (nothing listening on the port, say), which explain
// a connection that ends at once.
type forwards struct {
	*access.Session
	mu   sync.Mutex
	errs []string
}

// forward opens loopback forwards for reqs, on ephemeral ports, and waits
// until each reaches a ready pod (bounded by ctx). The caller closes it.
func (r *Runner) forward(ctx context.Context, reqs []access.Request) (*forwards, error) {
	f := &forwards{}
	for i := range reqs {
		for j := range reqs[i].Ports {
			reqs[i].Ports[j].Local = access.Ephemeral
		}
	}
	s, err := access.Start(ctx, r.Client.Config, r.Client.Clientset, reqs, access.Options{Interval: r.interval(), OnEvent: f.event})
	if err != nil {
		return nil, err
	}
	f.Session = s
	if err := s.WaitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return f, nil
}

func (f *forwards) event(e access.Event) {
	if e.Kind != access.ConnectionError {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf("pod %s port %d: %s", e.Pod, e.Port, oneLine(e.Reason)))
}

// podErrors returns what the pod side said of failed connections so far.
func (f *forwards) podErrors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// servicePort forwards one port of a Service and returns its local
// address.
func (r *Runner) servicePort(ctx context.Context, service string, port int) (*forwards, netip.AddrPort, error) {
	f, err := r.forward(ctx, []access.Request{{Namespace: r.Namespace, Service: service, Ports: []access.Port{{Port: int32(port)}}}})
	if err != nil {
		return nil, netip.AddrPort{}, err
	}
	return f, f.Forwards()[0].Local, nil
}
