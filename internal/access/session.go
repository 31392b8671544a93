package access

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// DefaultInterval is how often a forward looks at its pod when
// Options.Interval is zero.
const DefaultInterval = time.Second

// Request asks for the ports of one Service (or, by Kind, of a
// Deployment's or one Pod's containers) to be forwarded.
type Request struct {
	Namespace string
	Service   string // the name of the Service, or of the Deployment or Pod Kind names
	Kind      Kind   // zero means KindService
	// Address is the loopback address to listen on, 127.0.0.1 or ::1;
	// empty means Loopback. Any other address is refused.
	Address string
	Ports   []Port
}

func (r Request) kind() Kind {
	if r.Kind == "" {
		return KindService
	}
	return r.Kind
}

// Port is one Service port (a container port for a Deployment or Pod) to forward and the local port to forward it
// from: positive asks for that port (taken is a *PortTakenError), zero
// applies the rule of Candidates, Ephemeral takes any free port.
type Port struct {
	Name  string // the service port's name, for messages; may be empty
	Port  int32  // the service port (not its target port)
	Local int
}

// Options tune a Session. The zero value is valid.
type Options struct {
	// Interval is how often each forward reads its pod to notice that it
	// went away or stopped being ready; zero means DefaultInterval.
	Interval time.Duration
	// OnEvent receives what the forwards do, one call at a time; nil
	// drops events.
	OnEvent func(Event)
}

// Forwarded is one forward of a session: which Service port, from which
// local address.
type Forwarded struct {
	Namespace string
	Service   string
	Port      int32
	PortName  string
	Local     netip.AddrPort // always on loopback
}

// errSessionClosed is why a session closed by Close ended.
var errSessionClosed = errors.New("the port-forward session ended")

// Session is a set of forwards started together. Close ends them all.
type Session struct {
	cfg      *rest.Config
	cs       kubernetes.Interface
	opts     Options
	forwards []*forward

	ctx    context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // every goroutine of the session
	evMu   sync.Mutex
	once   sync.Once
}

// Start binds a 127.0.0.1 listener for every port of reqs, in order, then
// starts forwarding each Service to a ready pod of it in the background;
// it does not wait for the pods (see WaitReady). A local port that is
// taken ends Start with a *PortTakenError (nothing is left listening),
// and so does a Service that cannot be read.
//
// Each forward reads its pod every Options.Interval; when the pod is gone,
// being deleted or not ready and another ready pod exists, or when the
// connection to it breaks, the forward moves to another ready pod of the
// Service (a Reconnected event). Local connections made while a Service
// has no ready pod wait for one for up to the interval times ten, then are
// closed. The session ends when ctx does or Close is called.
func Start(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, reqs []Request, opts Options) (*Session, error) {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	s := &Session{cfg: cfg, cs: cs, opts: opts}
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	for _, r := range reqs {
		f, err := s.newForward(ctx, r)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.forwards = append(s.forwards, f)
	}
	for _, f := range s.forwards {
		f.start()
	}
	return s, nil
}

// go runs fn as a goroutine of the session, which Close waits for.
func (s *Session) goTracked(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

func (s *Session) emit(e Event) {
	if s.opts.OnEvent == nil {
		return
	}
	s.evMu.Lock()
	defer s.evMu.Unlock()
	s.opts.OnEvent(e)
}

// Forwards lists the session's forwards in the order they were asked for.
func (s *Session) Forwards() []Forwarded {
	var out []Forwarded
	for _, f := range s.forwards {
		for _, p := range f.ports {
			out = append(out, Forwarded{Namespace: f.namespace, Service: f.service, Port: p.port, PortName: p.name, Local: p.local()})
		}
	}
	return out
}

// WaitReady waits until every forward has reached a pod once, and fails
// when ctx ends first with an error naming each Service still without one
// and why.
func (s *Session) WaitReady(ctx context.Context) error {
	for _, f := range s.forwards {
		select {
		case <-f.ready:
		case <-ctx.Done():
			return s.notReady(context.Cause(ctx))
		case <-s.ctx.Done():
			// The session ends with Start's ctx or with Close. When its ctx
			// ended (often the same deadline as this call's ctx, whose
			// cancellation may not have reached ctx yet) say why no pod was
			// reached, as the ctx.Done case would.
			if cause := context.Cause(s.ctx); !errors.Is(cause, errSessionClosed) {
				return s.notReady(cause)
			}
			return errSessionClosed
		}
	}
	return nil
}

// notReady names the forwards that have not reached a pod.
func (s *Session) notReady(cause error) error {
	var lines []string
	for _, f := range s.forwards {
		select {
		case <-f.ready:
		default:
			lines = append(lines, fmt.Sprintf("%s/%s/%s: %s", f.req.kind(), f.namespace, f.service, f.lastWait()))
		}
	}
	return fmt.Errorf("port-forward not ready (%v): %s", cause, strings.Join(lines, "; "))
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// Close ends every forward: listeners, local connections and the
// connections to pods are closed, and Close returns once every goroutine
// of the session has. It is safe to call more than once.
func (s *Session) Close() {
	s.once.Do(func() {
		s.cancel(errSessionClosed)
		for _, f := range s.forwards {
			f.close()
		}
	})
	s.wg.Wait()
}

// local returns the address a listener is bound to.
func localAddr(ln net.Listener) netip.AddrPort {
	return ln.Addr().(*net.TCPAddr).AddrPort()
}
