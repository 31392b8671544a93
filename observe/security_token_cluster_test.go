package observe_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/observe"
)

// GET / of observe serve handed its token to any local process, which
// could then drive the lens with the operator's credentials (issue 28,
// hole 11). Now only the one-time launch URL gives a browser its session
// cookie (HttpOnly, SameSite=Strict, Path=/); the page without it carries
// no token and no secret; the API refuses a client without cookie or
// token; the Origin check stays.
func TestSecurityLensTokenNeedsTheLaunchURL(t *testing.T) {
	l := newLens(t, 0)
	a := l.archiveOf(t, object.Ref{Group: "apps", Kind: "Deployment", Namespace: l.ns, Name: "api"})
	s := serve(t, l, a, "", observe.Prefs{})
	launch := s.LaunchURL()
	secret := launch[strings.Index(launch, "=")+1:]
	noRedirect := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(url, cookie, origin, method string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(`{"name":"api"}`))
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if b := string(body); strings.Contains(b, s.Token()) || strings.Contains(b, secret) {
			t.Errorf("%s %s answered a body holding the token or the launch secret", method, url)
		}
		return res, string(body)
	}

	if res, body := get(s.base+"/", "", "", "GET"); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "launch URL") {
		t.Errorf("GET / without a session = %d %q, want 401 and a page saying to open the launch URL", res.StatusCode, body)
	}
	if res, _ := get(s.base+"/v1/status", "", "", "GET"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/status without cookie or token = %d, want 401", res.StatusCode)
	}
	if res, _ := get(s.base+"/?launch="+strings.Repeat("0", len(secret)), "", "", "GET"); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Errorf("GET / with a wrong launch secret = %d with cookies %v, want 403 and none", res.StatusCode, res.Cookies())
	}
	res, _ := get(launch, "", "", "GET")
	cs := res.Cookies()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" || len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/" {
		t.Fatalf("GET of the launch URL = %d to %q with cookies %v, want 303 to / with one HttpOnly SameSite=Strict Path=/ cookie", res.StatusCode, res.Header.Get("Location"), cs)
	}
	cookie := cs[0].Name + "=" + cs[0].Value
	if res, _ := get(launch, "", "", "GET"); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Errorf("a second GET of the launch URL = %d with cookies %v, want 403 and none: it works once", res.StatusCode, res.Cookies())
	}
	if res, body := get(s.base+"/", cookie, "", "GET"); res.StatusCode != http.StatusOK || !strings.Contains(body, "/app.js") {
		t.Errorf("GET / with the session cookie = %d, want the page", res.StatusCode)
	}
	if res, _ := get(s.base+"/v1/status", cookie, "", "GET"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/status with the session cookie = %d, want 200", res.StatusCode)
	}
	if res, _ := get(s.base+"/v1/forwards/start", cookie, "http://evil.example", "POST"); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST with the cookie from a foreign Origin = %d, want 403", res.StatusCode)
	}
}
