package egress

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// StatsSchema versions the document Stats is written as.
const StatsSchema = "piceli.egress/v1"

// maxRecent is how many refused destinations Stats keeps, newest last.
const maxRecent = 20

// maxRequest bounds a CONNECT request's line and headers.
const maxRequest = 16 << 10

// requestTimeout bounds reading the request and dialing the destination.
const requestTimeout = 10 * time.Second

// Stats counts what a Proxy did since it started.
type Stats struct {
	Schema  string `json:"schema"`  // StatsSchema
	Allowed uint64 `json:"allowed"` // tunnels opened to allowed destinations
	Refused uint64 `json:"refused"` // requests answered 403
	// RecentRefused are the last refused destinations (host:port as asked),
	// oldest first, at most 20.
	RecentRefused []string `json:"recentRefused"`
}

// Proxy is an HTTP CONNECT proxy. Set Allow before Serve; the zero value
// of the other fields is valid.
type Proxy struct {
	// Allow reports whether a destination address may be reached. Nil
	// refuses everything.
	Allow func(netip.Addr) bool
	// Log receives one line per refused request (and per failed dial);
	// nil discards.
	Log io.Writer
	// StatsFile, when set, is rewritten with Stats after every request.
	StatsFile string

	mu      sync.Mutex
	stats   Stats
	dirty   bool           // stats changed since StatsFile was written
	flushMu sync.Mutex     // one write of StatsFile at a time
	flushes sync.WaitGroup // writes started off a tunnel's path
}

// Serve accepts connections on ln until ctx ends (it then closes ln) and
// tunnels each allowed CONNECT request. It returns nil when ctx ends.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer p.flushes.Wait()
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("egress proxy: accept: %w", err)
		}
		wg.Go(func() { p.handle(ctx, c) })
	}
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Schema = StatsSchema
	s.RecentRefused = append([]string{}, s.RecentRefused...)
	return s
}

// handle serves one client connection: one CONNECT request, then the
// tunnel.
func (p *Proxy) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	// A tunnel lasts as long as its client wants, but not past ctx.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	_ = c.SetDeadline(time.Now().Add(requestTimeout))
	lr := &io.LimitedReader{R: c, N: maxRequest}
	br := bufio.NewReader(lr)
	req, err := http.ReadRequest(br)
	if err != nil {
		p.refuse(c, "", http.StatusBadRequest, fmt.Sprintf("unreadable request: %v", err))
		return
	}
	if req.Method != http.MethodConnect {
		p.refuse(c, "", http.StatusMethodNotAllowed, "only CONNECT is served, not "+req.Method)
		return
	}
	dest := req.Host
	addr, err := Destination(dest)
	if err != nil {
		p.refuse(c, dest, http.StatusForbidden, err.Error())
		return
	}
	if p.Allow == nil || !p.Allow(addr.Addr()) {
		p.refuse(c, dest, http.StatusForbidden, "not an address of this machine")
		return
	}
	d := net.Dialer{Timeout: requestTimeout}
	up, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		p.logf("egress proxy: dial %s: %v", dest, err)
		writeStatus(c, http.StatusBadGateway, "dial "+dest+" failed")
		return
	}
	defer up.Close()
	defer context.AfterFunc(ctx, func() { up.Close() })()
	if err := writeStatus(c, http.StatusOK, "Connection established"); err != nil {
		return
	}
	p.count(false, func(s *Stats) { s.Allowed++ })
	_ = c.SetDeadline(time.Time{})
	lr.N = math.MaxInt64
	tunnel(c, br, up)
}

// Destination parses a CONNECT target, host:port, where host must be an IP
// address or "localhost" (127.0.0.1): the proxy resolves no names. An
// IPv4-mapped IPv6 address is taken as its IPv4 address.
func Destination(hostPort string) (netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("destination %q: want host:port", hostPort)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ap, err := netip.ParseAddrPort(net.JoinHostPort(host, port))
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("destination %q: want an IP address and a port (names are not resolved)", hostPort)
	}
	if ap.Addr().Zone() != "" || ap.Port() == 0 {
		return netip.AddrPort{}, fmt.Errorf("destination %q: want an IP address without zone and a port", hostPort)
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// refuse answers code with reason, logs a line naming the destination and
// counts it.
func (p *Proxy) refuse(c net.Conn, dest string, code int, reason string) {
	if dest == "" {
		dest = "(none)"
	}
	p.logf("egress proxy: refused %s: %s", dest, reason)
	p.count(true, func(s *Stats) {
		s.Refused++
		s.RecentRefused = append(s.RecentRefused, dest)
		if n := len(s.RecentRefused); n > maxRecent {
			s.RecentRefused = s.RecentRefused[n-maxRecent:]
		}
	})
	_ = writeStatus(c, code, "piceli sandbox egress refuses "+dest+": "+reason)
}

// writeStatus writes a bodiless response whose reason phrase is reason
// (kube-apiserver quotes the status line in its errors).
func writeStatus(c net.Conn, code int, reason string) error {
	_, err := fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", code, sanitize(reason))
	return err
}

// sanitize keeps a reason phrase on one printable line.
func sanitize(s string) string {
	out := []rune{}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		out = append(out, r)
		if len(out) >= 300 {
			break
		}
	}
	return string(out)
}

func (p *Proxy) logf(format string, args ...any) {
	if p.Log != nil {
		fmt.Fprintf(p.Log, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, args...)...)
	}
}

// count updates the stats and rewrites StatsFile: at once when now (a
// refusal, answered after its count is on disk), else in the background,
// off the tunnel's path (writing takes longer than opening a tunnel).
func (p *Proxy) count(now bool, update func(*Stats)) {
	p.mu.Lock()
	update(&p.stats)
	p.dirty = true
	p.mu.Unlock()
	if p.StatsFile == "" {
		return
	}
	if now {
		p.flush()
		return
	}
	p.flushes.Go(p.flush)
}

// flush writes the latest stats to StatsFile unless a write since their
// last change has done it already.
func (p *Proxy) flush() {
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	p.mu.Lock()
	if !p.dirty {
		p.mu.Unlock()
		return
	}
	s := p.stats
	s.Schema = StatsSchema
	s.RecentRefused = append([]string{}, s.RecentRefused...)
	p.dirty = false
	p.mu.Unlock()
	if err := writeStats(p.StatsFile, s); err != nil {
		p.logf("egress proxy: write %s: %v", p.StatsFile, err)
	}
}

func writeStats(path string, s Stats) error {
	if s.RecentRefused == nil {
		s.RecentRefused = []string{}
	}
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadStats reads a StatsFile; ok is false when there is none (the proxy
// has served nothing yet, or never ran).
func ReadStats(path string) (s Stats, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Stats{}, false, nil
	}
	if err != nil {
		return Stats{}, false, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return Stats{}, false, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return Stats{}, false, fmt.Errorf("read egress stats %s: %w", filepath.Base(path), err)
	}
	return s, true, nil
}

// tunnel copies both ways until both directions end, passing on each
// direction's end as a half close.
func tunnel(client net.Conn, fromClient *bufio.Reader, up net.Conn) {
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = io.Copy(up, fromClient)
		closeWrite(up)
	})
	_, _ = io.Copy(client, up)
	closeWrite(client)
	wg.Wait()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}
