package observe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/refusal"
)

// DefaultPort is the port the CLI's serve uses unless told otherwise.
const DefaultPort = 9876

// The server's limits.
const (
	MaxBodyBytes   = 4 << 10  // a POST body
	MaxHeaderBytes = 16 << 10 // all request headers
	RequestTimeout = 20 * time.Second
)

// ServeOptions configure a Server. Archive and Cluster are required; the
// zero value of every other field is valid.
type ServeOptions struct {
	Archive *Archive
	Cluster *Cluster
	// Address is 127.0.0.1 or ::1; empty means 127.0.0.1. Any other
	// address, a wildcard included, is refused.
	Address string
	// Port is the port to listen on; zero means any free port.
	Port int
	// User, when set, is whose saved forwards (those for this cluster and
	// context) the server starts when it starts and lists; without it the
	// server runs no forward.
	User  string
	Prefs Prefs
	// Log receives one line per refused or failed request (never a
	// secret, a token or a body); nil discards them.
	Log io.Writer
}

// Server is the operations lens served on loopback: a JSON REST API under
// /v1 and a browser UI from embedded assets. Every request must name the
// server by a loopback Host on its port (against DNS rebinding); the page
// and every /v1 request must carry the session cookie, which only the
// browser that opens the one-time LaunchURL gets, or (a program) the
// per-process Token; every POST must also come from the server's own
// Origin. No CORS header is ever sent and every
// response carries a strict Content-Security-Policy. Error bodies carry a
// fixed code, never internal details. The forwards it starts are its own:
// they end when it does.
type Server struct {
	opts    ServeOptions
	ln      net.Listener
	token   string // the API token, for programs embedding the server
	launch  *launch
	hosts   map[string]bool
	origins map[string]bool
	fw      *Forwarder
	srv     *http.Server
}

// NewServer checks opts, listens, and, with a User, starts that user's
// saved forwards (one that cannot start is listed with its error). Bad
// options and a refused address are refusals (refusal.Is); nothing is listening
// after an error. Serve serves until ctx ends.
func NewServer(ctx context.Context, opts ServeOptions) (*Server, error) {
	if opts.Archive == nil || opts.Cluster == nil {
		return nil, badInput("serve needs a session archive and a cluster")
	}
	if opts.Address == "" {
		opts.Address = access.Loopback
	}
	if err := access.CheckLoopback(opts.Address); err != nil {
		return nil, refusal.New(err)
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, badInput("port %d: want 0 to 65535", opts.Port)
	}
	if opts.User != "" {
		if _, err := opts.Prefs.List(opts.User); err != nil {
			return nil, err
		}
	}
	fw, err := NewForwarder(ctx, opts.Cluster)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.Address, strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", net.JoinHostPort(opts.Address, strconv.Itoa(opts.Port)), err)
	}
	s := &Server{opts: opts, ln: ln, token: newToken(), fw: fw}
	s.allow(ln.Addr().(*net.TCPAddr).Port)
	s.launch = newLaunch(ln.Addr().(*net.TCPAddr).Port)
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: MaxHeaderBytes,
		ErrorLog: nil, BaseContext: func(net.Listener) context.Context { return ctx }}
	s.restore()
	return s, nil
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// allow records the Host names and Origins that name this server.
func (s *Server) allow(port int) {
	p := strconv.Itoa(port)
	s.hosts, s.origins = map[string]bool{}, map[string]bool{}
	for _, h := range []string{"127.0.0.1", "[::1]", "localhost"} {
		s.hosts[h+":"+p] = true
		s.origins["http://"+h+":"+p] = true
	}
}

// restore starts the user's saved forwards for this cluster and context.
func (s *Server) restore() {
	for _, f := range s.saved() {
		if _, err := s.fw.Start(f); err != nil {
			s.logf("restore forward %q: %v", f.Name, err)
		}
	}
}

// saved are the user's forwards scoped to this cluster and context.
func (s *Server) saved() []Forward {
	if s.opts.User == "" {
		return nil
	}
	fs, err := s.opts.Prefs.List(s.opts.User)
	if err != nil {
		s.logf("read forwards of %s: %v", s.opts.User, err)
		return nil
	}
	var out []Forward
	for _, f := range fs {
		if f.ClusterUID == s.fw.uid && f.Context == s.fw.cl.Context {
			out = append(out, f)
		}
	}
	return out
}

// URL is where the UI is served.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Token is the per-process API token a program embedding the server may
// give its own client (Authorization: Bearer). The server never sends it:
// a browser uses the session cookie LaunchURL gives it.
func (s *Server) Token() string { return s.token }

// Serve serves until ctx ends, then shuts the server down and ends every
// forward it started; when it returns nothing it started listens.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(shut)
	s.fw.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, format+"\n", args...)
	}
}

// Handler is the server's whole HTTP surface, its checks included.
func (s *Server) Handler() http.Handler {
	routes := map[string]map[string]http.HandlerFunc{
		"/":                  {http.MethodGet: s.index},
		"/app.js":            {http.MethodGet: s.asset("app.js", "text/javascript; charset=utf-8")},
		"/style.css":         {http.MethodGet: s.asset("style.css", "text/css; charset=utf-8")},
		"/healthz":           {http.MethodGet: s.healthz},
		"/v1/status":         {http.MethodGet: s.status},
		"/v1/objects":        {http.MethodGet: s.objects},
		"/v1/forwards":       {http.MethodGet: s.forwards},
		"/v1/logs":           {http.MethodGet: s.logs},
		"/v1/forwards/start": {http.MethodPost: s.startForward},
		"/v1/forwards/stop":  {http.MethodPost: s.stopForward},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w.Header())
		if !s.hosts[r.Host] {
			s.refuse(w, r, http.StatusMisdirectedRequest, "bad-host")
			return
		}
		methods, ok := routes[r.URL.Path]
		if !ok {
			s.refuse(w, r, http.StatusNotFound, "not-found")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/") && !s.authorized(r) {
			s.refuse(w, r, http.StatusUnauthorized, "unauthorized")
			return
		}
		h, ok := methods[r.Method]
		if !ok {
			s.refuse(w, r, http.StatusMethodNotAllowed, "method-not-allowed")
			return
		}
		if r.Method != http.MethodGet {
			if !s.origins[r.Header.Get("Origin")] {
				s.refuse(w, r, http.StatusForbidden, "bad-origin")
				return
			}
			if r.ContentLength > MaxBodyBytes {
				s.refuse(w, r, http.StatusRequestEntityTooLarge, "too-large")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		}
		ctx, cancel := context.WithTimeout(r.Context(), RequestTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	})
}

// secure sets the headers every response carries. No CORS header is set,
// ever: only the server's own page may use the API.
func secure(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}
