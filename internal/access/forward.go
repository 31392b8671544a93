package access

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// forward is every forwarded port of one Service and the tunnel to the pod
// they share. Its supervisor goroutine alone replaces the tunnel.
type forward struct {
	s         *Session
	namespace string
	service   string
	req       Request // what it forwards to, read again on every dial
	ports     []*port

	mu      sync.Mutex
	tun     *tunnel
	changed chan struct{} // closed and replaced whenever tun changes
	waitMsg string        // why there is no tunnel, for errors
	conns   map[net.Conn]bool
	closed  bool
	ready   chan struct{} // closed when the first tunnel is up
	isReady bool
	lastPod string
}

// port is one listener of a forward.
type port struct {
	name string
	port int32
	ln   net.Listener
}

func (p *port) local() netip.AddrPort { return localAddr(p.ln) }

// newForward reads the Service and binds a listener for each port of r.
func (s *Session) newForward(ctx context.Context, r Request) (*forward, error) {
	f := &forward{s: s, namespace: r.Namespace, service: r.Service, req: r, conns: map[net.Conn]bool{},
		ready: make(chan struct{}), changed: make(chan struct{}), waitMsg: "not connected yet"}
	var nums []int32
	for _, p := range r.Ports {
		nums = append(nums, p.Port)
	}
	if _, err := readBackend(ctx, s.cs, r, nums); err != nil {
		return nil, err
	}
	for _, p := range r.Ports {
		ln, err := listen(r.Address, r.Service, p.Port, p.Local)
		if err != nil {
			f.close()
			return nil, err
		}
		f.ports = append(f.ports, &port{name: p.Name, port: p.Port, ln: ln})
	}
	return f, nil
}

// start runs the supervisor and an accept loop per port.
func (f *forward) start() {
	f.s.goTracked(f.supervise)
	for _, p := range f.ports {
		f.s.goTracked(func() { f.accept(p) })
	}
}

// close ends the listeners, the local connections and the tunnel.
func (f *forward) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for _, p := range f.ports {
		p.ln.Close()
	}
	for c := range f.conns {
		c.Close()
	}
	if f.tun != nil {
		f.tun.conn.Close()
	}
}

// supervise keeps the forward on a ready pod until the session ends.
func (f *forward) supervise() {
	ctx := f.s.ctx
	tick := time.NewTicker(f.s.opts.Interval)
	defer tick.Stop()
	avoid, why := "", ""
	for {
		if f.current() == nil {
			f.connect(ctx, avoid, why)
		}
		var closed <-chan bool
		if t := f.current(); t != nil {
			closed = t.conn.CloseChan()
		}
		select {
		case <-ctx.Done():
			return
		case <-closed:
			avoid, why = "", "the connection to it broke"
			f.drop()
		case <-tick.C:
			if reason, gone := f.podGone(ctx); gone {
				avoid, why = f.current().pod, reason
				f.drop()
			}
		}
	}
}

// connect dials a ready pod other than avoid (which went away for why)
// and makes it the forward's tunnel, or records why there is none.
func (f *forward) connect(ctx context.Context, avoid, why string) {
	t, err := f.dial(ctx, avoid)
	if err != nil {
		f.waiting(err.Error())
		return
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		t.conn.Close()
		return
	}
	prev, first := f.lastPod, !f.isReady
	f.tun, f.lastPod, f.waitMsg = t, t.pod, ""
	f.signalLocked()
	if first {
		f.isReady = true
		close(f.ready)
	}
	f.mu.Unlock()
	if first {
		for _, p := range f.ports {
			f.s.emit(Event{Kind: Forwarding, Namespace: f.namespace, Service: f.service, Port: p.port, PortName: p.name, Local: p.local(), Pod: t.pod})
		}
		return
	}
	f.s.emit(Event{Kind: Reconnected, Namespace: f.namespace, Service: f.service, Pod: t.pod, Previous: prev, Reason: why})
}

// dial picks a ready pod and opens a tunnel to it.
func (f *forward) dial(ctx context.Context, avoid string) (*tunnel, error) {
	var nums []int32
	for _, p := range f.ports {
		nums = append(nums, p.port)
	}
	b, err := readBackend(ctx, f.s.cs, f.req, nums)
	if err != nil {
		return nil, err
	}
	pod, err := b.choose(ctx, f.s.cs, f.namespace, avoid)
	if err != nil {
		return nil, err
	}
	ports := map[int32]int32{}
	for _, n := range nums {
		cp, err := b.targetPort(pod, n)
		if err != nil {
			return nil, err
		}
		ports[n] = cp
	}
	conn, err := dialPod(ctx, f.s.cfg, f.s.cs, pod.Namespace, pod.Name)
	if err != nil {
		return nil, err
	}
	return &tunnel{pod: pod.Name, conn: conn, ports: ports}, nil
}

// waiting records why the forward has no pod, and says so once per reason.
func (f *forward) waiting(msg string) {
	f.mu.Lock()
	same := f.waitMsg == msg
	f.waitMsg = msg
	f.mu.Unlock()
	if !same {
		f.s.emit(Event{Kind: Waiting, Namespace: f.namespace, Service: f.service, Reason: msg})
	}
}

func (f *forward) lastWait() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waitMsg
}

// podGone reports whether the tunnel's pod is gone, being deleted or not
// ready, and why.
func (f *forward) podGone(ctx context.Context) (string, bool) {
	t := f.current()
	if t == nil {
		return "", false
	}
	pod, err := f.s.cs.CoreV1().Pods(f.namespace).Get(ctx, t.pod, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Sprintf("pod %s went away", t.pod), true
	case err != nil:
		return "", false // the API server did not answer; look again next time
	case pod.DeletionTimestamp != nil:
		return fmt.Sprintf("pod %s is being deleted", t.pod), true
	case !PodReady(pod):
		return fmt.Sprintf("pod %s is not ready", t.pod), f.otherReady(ctx, pod)
	}
	return "", false
}

// otherReady reports whether the Service has a ready pod besides pod, so
// that a pod merely not ready is left only for a better one.
func (f *forward) otherReady(ctx context.Context, pod *corev1.Pod) bool {
	b, err := readBackend(ctx, f.s.cs, f.req, nil)
	if err != nil {
		return false
	}
	other, err := b.choose(ctx, f.s.cs, f.namespace, pod.Name)
	return err == nil && other.Name != pod.Name
}

// current returns the tunnel in use, or nil.
func (f *forward) current() *tunnel {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tun
}

// drop closes the tunnel in use; its streams end.
func (f *forward) drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tun != nil {
		f.tun.conn.Close()
		f.tun = nil
		f.signalLocked()
	}
}

// signalLocked wakes connections waiting for a tunnel; f.mu is held.
func (f *forward) signalLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}
