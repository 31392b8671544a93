package access

import (
	"net"
	"time"
)

// accept takes local connections on p until its listener closes, and
// serves each on its own goroutine of the session.
func (f *forward) accept(p *port) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed: the session ends
		}
		if !f.track(c) {
			c.Close()
			return
		}
		f.s.goTracked(func() {
			defer f.untrack(c)
			f.serve(c, p)
		})
	}
}

// serve forwards one local connection through the tunnel, waiting a while
// for one when the Service has no ready pod.
func (f *forward) serve(c net.Conn, p *port) {
	t := f.tunnelFor(10 * f.s.opts.Interval)
	if t == nil {
		c.Close()
		return
	}
	t.serve(c, p.port, f.s.ctx.Done(), func(msg string) {
		f.s.emit(Event{Kind: ConnectionError, Namespace: f.namespace, Service: f.service, Port: p.port, PortName: p.name, Pod: t.pod, Reason: msg})
	})
}

// tunnelFor returns the tunnel in use, waiting up to d for one.
func (f *forward) tunnelFor(d time.Duration) *tunnel {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		f.mu.Lock()
		t, changed, closed := f.tun, f.changed, f.closed
		f.mu.Unlock()
		if t != nil || closed {
			return t
		}
		select {
		case <-changed:
		case <-timeout.C:
			return nil
		case <-f.s.ctx.Done():
			return nil
		}
	}
}

// track records a local connection so that close can end it; false when
// the forward is closed already.
func (f *forward) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = true
	return true
}

func (f *forward) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}
