package faultproxy_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/faultproxy"
)

// upstream is a stand-in API server that counts what reaches it. A request
// with watch=true gets an answer that streams until the client goes away.
type upstream struct {
	srv  *httptest.Server
	hits atomic.Int32
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Query().Get("watch") != "true" {
			_, _ = io.WriteString(w, `{"kind":"ConfigMap"}`)
			return
		}
		for {
			if _, err := io.WriteString(w, `{"type":"BOOKMARK"}`+"\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func start(t *testing.T, u *upstream, rules ...faultproxy.Rule) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(&rest.Config{Host: u.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.Add(rules...); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") {
		t.Fatalf("proxy listens at %s, want loopback", p.URL())
	}
	return p
}

func send(t *testing.T, p *faultproxy.Proxy, method, path string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, p.URL()+path, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	// A fresh connection per request, so one test's reset cannot spill.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return c.Do(req)
}

var patchCM = faultproxy.Match{Method: http.MethodPatch, Path: "/configmaps/"}

func TestWithoutRulesEveryRequestIsForwarded(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u)
	resp, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH through the proxy: %v, %v; want 200", resp, err)
	}
	resp.Body.Close()
	if got := p.Forwarded(patchCM); got != 1 || u.hits.Load() != 1 {
		t.Errorf("forwarded %d, upstream saw %d; want 1 and 1", got, u.hits.Load())
	}
}

func TestStatusAnswersWithoutForwarding(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.Status, Match: patchCM, Code: 429, RetryAfter: 2 * time.Second})
	resp, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(body), `"reason":"TooManyRequests"`) {
		t.Errorf("answer = %d, Retry-After %q, body %s; want 429, 2, a TooManyRequests Status", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if u.hits.Load() != 0 || p.Forwarded(faultproxy.Match{}) != 0 {
		t.Errorf("upstream saw %d requests, want none", u.hits.Load())
	}
}

func TestStatusAfterForwardHidesALandedWrite(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.StatusAfterForward, Match: patchCM, Code: 503})
	resp, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || u.hits.Load() != 1 || p.Forwarded(patchCM) != 1 {
		t.Errorf("answer %d, upstream saw %d; want 503 after the write reached it once", resp.StatusCode, u.hits.Load())
	}
}

func TestResetsDropTheConnection(t *testing.T) {
	for _, tc := range []struct {
		kind faultproxy.Kind
		hits int32
	}{{faultproxy.Reset, 0}, {faultproxy.ResetAfterForward, 1}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			u := newUpstream(t)
			p := start(t, u, faultproxy.Rule{Kind: tc.kind, Match: patchCM})
			_, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
			if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
				t.Errorf("PATCH error = %v; want a reset connection", err)
			}
			if u.hits.Load() != tc.hits || p.Forwarded(patchCM) != int(tc.hits) {
				t.Errorf("upstream saw %d, proxy counted %d; want %d", u.hits.Load(), p.Forwarded(patchCM), tc.hits)
			}
		})
	}
}

func TestCutWatchEndsTheStream(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.CutWatch, Match: faultproxy.Match{Watch: faultproxy.OnlyWatches}, Delay: 150 * time.Millisecond})
	begin := time.Now()
	resp, err := send(t, p, http.MethodGet, "/api/v1/configmaps?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(begin)
	if err == nil {
		t.Errorf("watch stream ended cleanly; want it cut")
	}
	if took < 150*time.Millisecond || took > 5*time.Second {
		t.Errorf("watch cut after %s; want about 150ms", took)
	}
}

func TestDelayHoldsTheRequest(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.Delay, Delay: 200 * time.Millisecond})
	begin := time.Now()
	resp, err := send(t, p, http.MethodGet, "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if took := time.Since(begin); took < 200*time.Millisecond {
		t.Errorf("answered after %s; want at least the 200ms delay", took)
	}
}

// Skip lets the first matching requests through and Times bounds the rest.
func TestSkipAndTimes(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.Status, Match: patchCM, Code: 500, Skip: 1, Times: 2})
	var codes []int
	for range 5 {
		resp, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	want := []int{200, 500, 500, 200, 200}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("answers = %v; want %v", codes, want)
		}
	}
	if got := p.Applied(); len(got) != 1 || got[0] != 2 {
		t.Errorf("Applied = %v; want [2]", got)
	}
	// Other requests never match the rule.
	resp, err := send(t, p, http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET = %v, %v; want 200", resp, err)
	}
}

func TestBadRulesAreRefused(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u)
	for _, r := range []faultproxy.Rule{
		{Kind: "teleport"},
		{Kind: faultproxy.Status, Code: 200},
		{Kind: faultproxy.CutWatch},
		{Kind: faultproxy.Delay, Match: faultproxy.Match{Path: "("}},
	} {
		if err := p.Add(r); err == nil {
			t.Errorf("Add(%+v) = nil; want an error", r)
		}
	}
}

// Writes leaves out reads and dry runs: they change nothing.
func TestWritesCountsOnlyRealWrites(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u)
	for _, path := range []string{"/api/v1/namespaces/a/configmaps/x", "/api/v1/namespaces/a/configmaps/x?dryRun=All"} {
		resp, err := send(t, p, http.MethodPatch, path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := send(t, p, http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, all := p.Writes(faultproxy.Match{Path: "/configmaps/x$"}), p.Forwarded(faultproxy.Match{}); got != 1 || all != 3 {
		t.Errorf("Writes = %d, Forwarded = %d; want 1 of 3", got, all)
	}
}

// A rule for real requests leaves dry runs alone, so a test can fail a
// write without failing the dry run a plan makes of it first.
func TestNoDryRunsLeavesDryRunsAlone(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.Status, Code: 409, Match: faultproxy.Match{Method: http.MethodPatch, DryRun: faultproxy.NoDryRuns}})
	var codes []int
	for _, path := range []string{"/api/v1/namespaces/a/configmaps/x?dryRun=All", "/api/v1/namespaces/a/configmaps/x"} {
		resp, err := send(t, p, http.MethodPatch, path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if codes[0] != 200 || codes[1] != 409 {
		t.Errorf("answers to a dry run and a real PATCH = %v; want [200 409]", codes)
	}
	if got := p.Forwarded(faultproxy.Match{DryRun: faultproxy.OnlyDryRuns}); got != 1 {
		t.Errorf("Forwarded(only dry runs) = %d; want 1", got)
	}
}

// CutAnswer lets the status and half the body through, then drops the
// connection: reading the body fails.
func TestCutAnswerEndsTheBodyHalfway(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.CutAnswer, Match: faultproxy.Match{Method: http.MethodGet}})
	resp, err := send(t, p, http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	full := `{"kind":"ConfigMap"}`
	if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) || string(body) != full[:len(full)/2] {
		t.Errorf("answer %d, body %q, read error %v; want 200, %q, an unexpected EOF", resp.StatusCode, body, err, full[:len(full)/2])
	}
	if u.hits.Load() != 1 || p.Forwarded(faultproxy.Match{}) != 1 {
		t.Errorf("upstream saw %d requests, want 1", u.hits.Load())
	}
}

// A request the upstream never received, because it is down and refuses
// the connection, is answered 502 and not counted as forwarded: it cannot
// have changed anything.
func TestAnUpstreamThatIsDownReceivesNothing(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u)
	u.srv.Close()
	resp, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("answer = %d; want 502", resp.StatusCode)
	}
	if got := p.Writes(patchCM); got != 0 {
		t.Errorf("Writes = %d after the upstream refused the connection; want 0", got)
	}
	if log := p.Requests(); len(log) != 1 || log[0].Forwarded || log[0].Code != 0 {
		t.Errorf("log = %+v; want the PATCH, not forwarded, unanswered", log)
	}
}

// The log keeps the upstream's answer, also when the client is told
// something else.
func TestTheLogKeepsTheServersAnswer(t *testing.T) {
	u := newUpstream(t)
	p := start(t, u, faultproxy.Rule{Kind: faultproxy.ResetAfterForward, Match: patchCM})
	if _, err := send(t, p, http.MethodPatch, "/api/v1/namespaces/a/configmaps/x"); err == nil {
		t.Fatalf("PATCH = nil error; want a reset")
	}
	if log := p.Requests(); len(log) != 1 || !log[0].Forwarded || log[0].Code != 200 {
		t.Errorf("log = %+v; want the PATCH forwarded and answered 200 by the server", log)
	}
}
