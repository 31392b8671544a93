package observe

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/pynenc/piceli/internal/access"
)

// ForwardState is a saved forward and whether it runs, from where.
type ForwardState struct {
	Forward
	Running bool   `json:"running"`
	Local   string `json:"local,omitempty"` // the bound address, when running
	Error   string `json:"error,omitempty"` // why it could not start, last time
}

// Forwarder runs saved forwards on one cluster through the API server,
// each supervised by its own access session (it moves to another ready
// pod when its pod goes). It listens on loopback only. Close ends every
// forward it started. It is safe for concurrent use.
type Forwarder struct {
	ctx     context.Context // the forwards' lifetime
	cl      *Cluster
	uid     string
	mu      sync.Mutex
	running map[string]*running
	failed  map[string]string
}

type running struct {
	f    Forward
	sess *access.Session
}

// NewForwarder reads the cluster's identity, which saved forwards must
// match to run. The forwards it starts live until ctx ends or Close.
func NewForwarder(ctx context.Context, cl *Cluster) (*Forwarder, error) {
	id, err := cl.identity(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the identity of %s: %w", cl.Server, err)
	}
	return &Forwarder{ctx: ctx, cl: cl, uid: id.ClusterUID, running: map[string]*running{}, failed: map[string]string{}}, nil
}

// Scope fills f's cluster identity and context from the forwarder's
// cluster, for saving.
func (fw *Forwarder) Scope(f Forward) Forward {
	f.ClusterUID, f.Context, f.Server = fw.uid, fw.cl.Context, fw.cl.Server
	return f
}

// Start runs f, which must be valid and saved for this cluster and
// context (refused otherwise: refusal.Is), and returns once it listens; it
// does not wait for a pod. Starting a forward that runs already is a
// no-op.
func (fw *Forwarder) Start(f Forward) (ForwardState, error) {
	if err := f.Validate(); err != nil {
		return ForwardState{}, err
	}
	if f.ClusterUID != fw.uid || f.Context != fw.cl.Context {
		return ForwardState{}, badInput("forward %q is saved for cluster %s, context %s; this is cluster %s, context %s", f.Name, f.ClusterUID, f.Context, fw.uid, fw.cl.Context)
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if r, ok := fw.running[f.Name]; ok {
		return stateOf(r), nil
	}
	kind, name, _ := parseTarget(f.Target)
	req := access.Request{Namespace: f.Namespace, Service: name, Kind: kind, Address: f.Address,
		Ports: []access.Port{{Name: f.Name, Port: int32(f.RemotePort), Local: f.LocalPort}}}
	sess, err := access.Start(fw.ctx, fw.cl.c.Config, fw.cl.c.Clientset, []access.Request{req}, access.Options{})
	if err != nil {
		fw.failed[f.Name] = err.Error()
		return ForwardState{Forward: f, Error: err.Error()}, fmt.Errorf("start forward %q: %w", f.Name, err)
	}
	delete(fw.failed, f.Name)
	r := &running{f: f, sess: sess}
	fw.running[f.Name] = r
	return stateOf(r), nil
}

// WaitReady waits until the forward named name reaches a pod.
func (fw *Forwarder) WaitReady(ctx context.Context, name string) error {
	fw.mu.Lock()
	r, ok := fw.running[name]
	fw.mu.Unlock()
	if !ok {
		return badInput("forward %q is not running", name)
	}
	return r.sess.WaitReady(ctx)
}

// Stop ends the forward named name; it is a refusal (refusal.Is) when it does not
// run.
func (fw *Forwarder) Stop(name string) error {
	fw.mu.Lock()
	r, ok := fw.running[name]
	delete(fw.running, name)
	fw.mu.Unlock()
	if !ok {
		return badInput("forward %q is not running", name)
	}
	r.sess.Close()
	return nil
}

// States returns saved with whether each runs, plus any running forward
// not among them, sorted by name.
func (fw *Forwarder) States(saved []Forward) []ForwardState {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	var out []ForwardState
	seen := map[string]bool{}
	for _, f := range saved {
		seen[f.Name] = true
		if r, ok := fw.running[f.Name]; ok {
			out = append(out, stateOf(r))
			continue
		}
		out = append(out, ForwardState{Forward: f, Error: fw.failed[f.Name]})
	}
	for name, r := range fw.running {
		if !seen[name] {
			out = append(out, stateOf(r))
		}
	}
	slices.SortFunc(out, func(a, b ForwardState) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close ends every forward the forwarder started; when it returns none
// listens.
func (fw *Forwarder) Close() {
	fw.mu.Lock()
	rs := fw.running
	fw.running = map[string]*running{}
	fw.mu.Unlock()
	for _, r := range rs {
		r.sess.Close()
	}
}

func stateOf(r *running) ForwardState {
	st := ForwardState{Forward: r.f, Running: true}
	for _, l := range r.sess.Forwards() {
		st.Local = l.Local.String()
	}
	return st
}

// LocalAddr parses a ForwardState's Local address.
func (s ForwardState) LocalAddr() (netip.AddrPort, error) { return netip.ParseAddrPort(s.Local) }
