package observe_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/observe"
	"github.com/pynenc/piceli/refusal"
)

// serving is a lens server running for one test.
type serving struct {
	*observe.Server
	base string // http://127.0.0.1:PORT
}

func serve(t *testing.T, l *lens, a *observe.Archive, user string, prefs observe.Prefs) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s, err := observe.NewServer(ctx, observe.ServeOptions{Archive: a, Cluster: l.cl, User: user, Prefs: prefs, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &serving{Server: s, base: strings.TrimSuffix(s.URL(), "/")}
}

type call struct {
	method, path, host, token, origin, body string
	contentLength                           int64
}

func (s *serving) do(t *testing.T, c call) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, s.base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	if c.contentLength != 0 {
		req.ContentLength = c.contentLength
	}
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	assertHeaders(t, c, res)
	return res, string(body)
}

// assertHeaders checks what every response must carry and must not.
func assertHeaders(t *testing.T, c call, res *http.Response) {
	t.Helper()
	for k := range res.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s %s: response carries CORS header %s", c.method, c.path, k)
		}
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("%s %s: Content-Security-Policy %q, want default-src 'self'", c.method, c.path, csp)
	}
}

var errorBody = regexp.MustCompile(`^\{"error":\{"code":"[a-z-]+"\}\}\n$`)

// The server refuses a wrong Host, a missing or wrong token, a POST from a
// foreign Origin or none, an oversized body and a non-loopback bind; every
// answer carries the CSP and no CORS header; error bodies are a fixed code.
func TestServerRefusesWhatItMust(t *testing.T) {
	l := newLens(t, 10)
	prefs := observe.Prefs{Dir: filepath.Join(t.TempDir(), "forwards")}
	s := serve(t, l, l.archive, "alice", prefs)
	tok := s.Token()
	host := strings.TrimPrefix(s.base, "http://")
	origin := s.base
	for _, tc := range []struct {
		name string
		call call
		want int
		code string
	}{
		{"a foreign Host (DNS rebinding)", call{method: "GET", path: "/v1/status", host: "evil.example:" + port(host), token: tok}, 421, "bad-host"},
		{"a foreign Host for the page", call{method: "GET", path: "/", host: "evil.example"}, 421, "bad-host"},
		{"the right name on another port", call{method: "GET", path: "/healthz", host: "127.0.0.1:1"}, 421, "bad-host"},
		{"no token", call{method: "GET", path: "/v1/status"}, 401, "unauthorized"},
		{"a wrong token", call{method: "GET", path: "/v1/objects", token: strings.Repeat("0", len(tok))}, 401, "unauthorized"},
		{"a token on a POST without Origin", call{method: "POST", path: "/v1/forwards/start", token: tok, body: `{"name":"api"}`}, 403, "bad-origin"},
		{"a foreign Origin on POST", call{method: "POST", path: "/v1/forwards/stop", token: tok, origin: "http://evil.example", body: `{"name":"api"}`}, 403, "bad-origin"},
		{"a POST without token", call{method: "POST", path: "/v1/forwards/start", origin: origin, body: `{"name":"api"}`}, 401, "unauthorized"},
		{"an oversized body", call{method: "POST", path: "/v1/forwards/start", token: tok, origin: origin, body: `{"name":"` + strings.Repeat("a", 8<<10) + `"}`}, 413, "too-large"},
		{"an oversized body without a length", call{method: "POST", path: "/v1/forwards/start", token: tok, origin: origin, body: `{"name":"` + strings.Repeat("a", 8<<10) + `"}`, contentLength: -1}, 413, "too-large"},
		{"an unknown path", call{method: "GET", path: "/v1/secrets", token: tok}, 404, "not-found"},
		{"GET on a POST route", call{method: "GET", path: "/v1/forwards/start", token: tok}, 405, "method-not-allowed"},
		{"a namespace not the session's", call{method: "GET", path: "/v1/logs?namespace=kube-system&target=deployment/coredns", token: tok}, 400, "bad-request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := s.do(t, tc.call)
			if res.StatusCode != tc.want || !errorBody.MatchString(body) || !strings.Contains(body, `"`+tc.code+`"`) {
				t.Errorf("%s %s = %d %q, want %d with code %s and nothing else", tc.call.method, tc.call.path, res.StatusCode, body, tc.want, tc.code)
			}
		})
	}
	t.Run("the right calls are answered", func(t *testing.T) {
		for _, c := range []call{
			{method: "GET", path: "/healthz"},
			{method: "GET", path: "/v1/status", token: tok},
			{method: "GET", path: "/v1/forwards", token: tok},
		} {
			if res, body := s.do(t, c); res.StatusCode != 200 {
				t.Errorf("%s %s = %d %q, want 200", c.method, c.path, res.StatusCode, body)
			}
		}
	})
	t.Run("a non-loopback bind", func(t *testing.T) {
		for _, addr := range []string{"0.0.0.0", "::", "192.0.2.1", "localhost"} {
			_, err := observe.NewServer(t.Context(), observe.ServeOptions{Archive: l.archive, Cluster: l.cl, Address: addr})
			if !refusal.Is(err) {
				t.Errorf("NewServer(address %q) = %v, want it refused as bad input", addr, err)
			}
		}
	})
}

func port(hostport string) string { return hostport[strings.LastIndex(hostport, ":")+1:] }

// No response of the server holds a secret value of the namespace, raw or
// encoded: Secrets are read as metadata only, declared or not.
func TestServerResponsesHoldNoSecretValue(t *testing.T) {
	l := newLens(t, 10)
	canary := "piceli-canary-" + strings.ReplaceAll(l.ns, "-", "")
	for _, name := range []string{"declared", "undeclared"} {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: l.ns}, Data: map[string][]byte{"password": []byte(canary + name)}}
		if _, err := l.sb.Clientset.CoreV1().Secrets(l.ns).Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	a := l.archiveOf(t, object.Ref{Group: "apps", Kind: "Deployment", Namespace: l.ns, Name: "api"}, object.Ref{Kind: "Secret", Namespace: l.ns, Name: "declared"})
	s := serve(t, l, a, "", observe.Prefs{})
	tok := s.Token()
	var all strings.Builder
	for _, c := range []call{
		{method: "GET", path: "/"}, {method: "GET", path: "/app.js"}, {method: "GET", path: "/healthz"},
		{method: "GET", path: "/v1/status", token: tok}, {method: "GET", path: "/v1/objects", token: tok},
		{method: "GET", path: "/v1/forwards", token: tok},
		{method: "GET", path: "/v1/logs?" + url.Values{"namespace": {l.ns}, "target": {"deployment/api"}}.Encode(), token: tok},
		{method: "GET", path: "/v1/logs?" + url.Values{"namespace": {l.ns}, "target": {"pod/nonexistent"}}.Encode(), token: tok},
	} {
		res, body := s.do(t, c)
		if c.path == "/v1/status" {
			var rep observe.Report
			if err := json.Unmarshal([]byte(body), &rep); err != nil || rep.Counts[observe.Present] != 2 || rep.Counts[observe.Undeclared] != 1 {
				t.Errorf("GET /v1/status = %d %s; want both declared objects present and the other Secret undeclared", res.StatusCode, body)
			}
		}
		all.WriteString(body)
	}
	for _, name := range []string{"declared", "undeclared"} {
		v := canary + name
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v)), hex.EncodeToString([]byte(v)), url.QueryEscape(v)} {
			if strings.Contains(all.String(), form) {
				t.Errorf("a response holds the value of Secret %s (as %q)", name, form)
			}
		}
	}
}

// An archive of another cluster is reconciled but said plainly to be of
// another cluster, and the report is unhealthy.
func TestStatusSaysWhenTheClusterIsNotTheArchives(t *testing.T) {
	l := newLens(t, 0)
	a := l.archiveOf(t, object.Ref{Group: "apps", Kind: "Deployment", Namespace: l.ns, Name: "api"})
	a.Target.ClusterUID = "uid-of-another-cluster"
	rep, err := observe.Status(t.Context(), l.cl, a, observe.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cluster.Same || !strings.Contains(rep.Cluster.Message, "not the archive's cluster") || rep.Healthy() {
		t.Errorf("Status of another cluster's archive: cluster %+v, healthy %v; want it said plainly and unhealthy", rep.Cluster, rep.Healthy())
	}
}
