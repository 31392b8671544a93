// Package faultproxy is a reverse proxy for a Kubernetes API server that
// injects faults by rule: it answers with a chosen status instead of the
// server, delays requests, drops the connection after the server answered
// (so the client cannot know a write landed), cuts watches and cuts plain
// answers halfway through their body. It counts every request it
// forwarded, so a test can prove a write was sent once.
//
// It listens on a loopback address only, serves plain HTTP/1.1 to its
// client and forwards with the upstream rest.Config's own TLS and
// credentials. It exists for tests and the acceptance suite.
package faultproxy

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// quiet drops the proxy's own error lines: every injected fault would
// print one.
var quiet = log.New(io.Discard, "", 0)

// Proxy is a running fault-injecting proxy. Its methods are safe for
// concurrent use.
type Proxy struct {
	srv      *http.Server
	ln       net.Listener
	upstream http.RoundTripper
	fwd      *httputil.ReverseProxy

	mu      sync.Mutex
	rules   []*armed
	log     []Request
	stopped chan struct{}
}

// Request is one request the proxy saw, in arrival order.
type Request struct {
	Method    string
	Path      string // URL path, without the query
	Watch     bool   // a watch (watch=true in the query)
	DryRun    bool   // a dry run (dryRun in the query): it changes nothing
	Forwarded bool   // it was written whole to the upstream server
	Code      int    // the upstream server's answer; 0 when none arrived
	Fault     Kind   // the fault applied to it, "" for none
	At        time.Time
}

// Start serves a proxy to the API server cfg reaches, on a free port of
// 127.0.0.1. Close stops it.
func Start(cfg *rest.Config) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("fault proxy: upstream %q is not a URL", cfg.Host)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: upstream transport: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p := &Proxy{ln: ln, upstream: rt, stopped: make(chan struct{})}
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     rt,
		FlushInterval: -1, // stream watches as they come
		ErrorLog:      quiet,
	}
	p.fwd.ModifyResponse = p.answered
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet}
	go func() { _ = p.srv.Serve(ln); close(p.stopped) }()
	return p, nil
}

// URL is the proxy's address, for a client's rest.Config Host.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// ClientConfig returns a rest.Config that reaches the upstream server
// through the proxy: no credentials, since the proxy adds the upstream's.
func (p *Proxy) ClientConfig() *rest.Config { return &rest.Config{Host: p.URL()} }

// Close stops the proxy, ending open connections (watches included).
func (p *Proxy) Close() error {
	err := p.srv.Close()
	<-p.stopped
	return err
}

// Add arms rules, after those already armed. For each request the first
// armed rule that matches and still has uses left applies.
func (p *Proxy) Add(rules ...Rule) error {
	for _, r := range rules {
		a, err := arm(r)
		if err != nil {
			return err
		}
		p.mu.Lock()
		p.rules = append(p.rules, a)
		p.mu.Unlock()
	}
	return nil
}

// Clear disarms every rule; the log and counts stay.
func (p *Proxy) Clear() {
	p.mu.Lock()
	p.rules = nil
	p.mu.Unlock()
}

// Requests returns a copy of the log.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Forwarded counts the logged requests that reached the server and match
// m (see Match; a zero Match counts every one).
func (p *Proxy) Forwarded(m Match) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Forwarded && m.matches(r) {
			n++
		}
	}
	return n
}

// Writes counts the logged requests matching m that reached the server
// and could change it: not reads, watches or dry runs.
func (p *Proxy) Writes(m Match) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Forwarded && !r.DryRun && r.Method != http.MethodGet && r.Method != http.MethodHead && m.matches(r) {
			n++
		}
	}
	return n
}

// Applied reports how many times each rule has applied, in Add order.
func (p *Proxy) Applied() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, len(p.rules))
	for i, a := range p.rules {
		out[i] = a.applied
	}
	return out
}

// serve applies the first matching rule to r, or forwards it untouched.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Method: r.Method, Path: r.URL.Path, Watch: isWatch(r), DryRun: r.URL.Query().Has("dryRun"), At: time.Now()}
	rule := p.pick(req)
	if rule == nil {
		p.forward(req, w, r)
		return
	}
	req.Fault = rule.Kind
	faults[rule.Kind](p, rule, req, w, r)
}

// pick returns the rule that applies to req, counting the use, or nil.
func (p *Proxy) pick(req Request) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.rules {
		if a.take(req) {
			r := a.Rule
			return &r
		}
	}
	return nil
}

// record logs req and returns its index in the log.
func (p *Proxy) record(req Request, forwarded bool) int {
	req.Forwarded = forwarded
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, req)
	return len(p.log) - 1
}

// forward logs req and sends r upstream, answering on w. The request
// counts as forwarded once it was written whole to the upstream
// connection: one the server never received (it refused the connection,
// or the client went away first) cannot have changed anything. The
// server's answer code is logged when it arrives.
func (p *Proxy) forward(req Request, w http.ResponseWriter, r *http.Request) {
	i := p.record(req, false)
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			p.update(i, func(r *Request) { r.Forwarded = true })
		}
	}}
	ctx := context.WithValue(httptrace.WithClientTrace(r.Context(), trace), logIndex{}, i)
	p.fwd.ServeHTTP(w, r.WithContext(ctx))
}

// logIndex keys, in a forwarded request's context, its index in the log.
type logIndex struct{}

// answered logs the upstream's answer code of a forwarded request. An
// answer also proves the request reached the server: the transport may
// report the write done (WroteRequest) only after the answer has been
// read, and the client given it, so it is marked forwarded here too,
// before the client sees the answer.
func (p *Proxy) answered(resp *http.Response) error {
	if i, ok := resp.Request.Context().Value(logIndex{}).(int); ok {
		p.update(i, func(r *Request) { r.Code, r.Forwarded = resp.StatusCode, true })
	}
	return nil
}

func (p *Proxy) update(i int, f func(*Request)) {
	p.mu.Lock()
	f(&p.log[i])
	p.mu.Unlock()
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}

// forwardWithin forwards r, ending the exchange (and a streaming answer
// with it) after d.
func (p *Proxy) forwardWithin(req Request, w http.ResponseWriter, r *http.Request, d time.Duration) {
	ctx, cancel := context.WithTimeout(r.Context(), d)
	defer cancel()
	p.forward(req, w, r.WithContext(ctx))
}
