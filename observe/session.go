package observe

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// launch hands the browser its session: the launch URL serve prints
// carries a one-time secret; the first GET / with it gets a session cookie
// (HttpOnly, SameSite=Strict, Path=/) and a redirect to the clean URL. The
// page and the API then accept the cookie. No response carries the
// secret or the API token, and only the launch's carries the cookie, so a
// local process that did not see the printed URL has nothing to present.
type launch struct {
	mu      sync.Mutex
	secret  string // the launch URL's; "" once used
	session string // the cookie's value
	cookie  string // the cookie's name, which names the port
}

func newLaunch(port int) *launch {
	return &launch{secret: newToken(), session: newToken(), cookie: "piceli_lens_" + strconv.Itoa(port)}
}

// LaunchParam is the query parameter of the launch URL.
const LaunchParam = "launch"

// use spends the launch secret: true once, for the right secret.
func (l *launch) use(got string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.secret == "" || subtle.ConstantTimeCompare([]byte(got), []byte(l.secret)) != 1 {
		return false
	}
	l.secret = ""
	return true
}

// hasSession checks the request's session cookie in constant time.
func (l *launch) hasSession(r *http.Request) bool {
	c, err := r.Cookie(l.cookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(l.session)) == 1
}

func (l *launch) setCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: l.cookie, Value: l.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// LaunchURL is the URL to open once in a browser: it carries the one-time
// secret that gives that browser its session cookie. Print it only to the
// operator.
func (s *Server) LaunchURL() string {
	s.launch.mu.Lock()
	defer s.launch.mu.Unlock()
	return s.URL() + "?" + LaunchParam + "=" + s.launch.secret
}

// index serves the page to a browser with a session; spends a launch
// secret for one; and tells anyone else, with no token, to open the
// printed launch URL.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if got := r.URL.Query().Get(LaunchParam); got != "" {
		if !s.launch.use(got) {
			s.page(w, http.StatusForbidden, "This launch URL was already used or is wrong. Open the lens from the browser that used it, or restart piceli observe serve for a new one.")
			return
		}
		s.launch.setCookie(w)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.launch.hasSession(r) {
		s.page(w, http.StatusUnauthorized, "Open the launch URL that piceli observe serve printed (it ends in ?launch=…); it works once and gives this browser its session.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	indexPage.Execute(w, nil)
}

// page answers with a plain page saying msg.
func (s *Server) page(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	gatePage.Execute(w, msg)
}

// authorized accepts the session cookie or the API token (Authorization:
// Bearer), each checked in constant time.
func (s *Server) authorized(r *http.Request) bool {
	if s.launch.hasSession(r) {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}
