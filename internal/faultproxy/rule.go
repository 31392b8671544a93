package faultproxy

import (
	"fmt"
	"regexp"
	"time"
)

// Kind is a kind of fault. Kinds lists them all.
type Kind string

// The faults a Rule can inject.
const (
	// Status answers with Rule.Code (and Retry-After when RetryAfter is
	// set) without forwarding: the server never sees the request.
	Status Kind = "status"
	// StatusAfterForward forwards the request, discards the server's
	// answer and answers Rule.Code instead: the write landed, the client
	// is told it failed.
	StatusAfterForward Kind = "status-after-forward"
	// Delay forwards the request after Rule.Delay.
	Delay Kind = "delay"
	// Reset drops the connection without forwarding.
	Reset Kind = "reset"
	// ResetAfterForward forwards the request, waits for the server's
	// answer and then drops the connection: the write landed, the client
	// cannot know.
	ResetAfterForward Kind = "reset-after-forward"
	// CutWatch forwards the request and ends it after Rule.Delay, as a
	// server or a load balancer ending a long poll or a watch does.
	CutWatch Kind = "cut-watch"
	// CutAnswer forwards the request, then sends the server's status,
	// headers and the first half of its body and drops the connection:
	// the answer of a plain GET or LIST cut mid-way, which the client
	// sees as an unexpected EOF while reading the body.
	CutAnswer Kind = "cut-answer"
)

// WatchFilter restricts a Match to watches or to other requests.
type WatchFilter int

const (
	AnyRequest  WatchFilter = iota // watches and other requests
	OnlyWatches                    // only requests with watch=true
	NoWatches                      // only requests without it
)

// DryRunFilter restricts a Match to dry runs or to other requests.
type DryRunFilter int

const (
	AnyRun      DryRunFilter = iota // dry runs and other requests
	OnlyDryRuns                     // only requests with dryRun in the query
	NoDryRuns                       // only requests without it: the real writes and reads
)

// Match selects requests. Its zero value matches every request.
type Match struct {
	Method string       // HTTP method; "" matches any
	Path   string       // regular expression the URL path must match; "" matches any
	Watch  WatchFilter  // watches, other requests, or both
	DryRun DryRunFilter // dry runs, other requests, or both

	re *regexp.Regexp
}

func (m Match) matches(r Request) bool {
	if m.Method != "" && m.Method != r.Method {
		return false
	}
	if m.Watch == OnlyWatches && !r.Watch || m.Watch == NoWatches && r.Watch {
		return false
	}
	if m.DryRun == OnlyDryRuns && !r.DryRun || m.DryRun == NoDryRuns && r.DryRun {
		return false
	}
	if m.Path == "" {
		return true
	}
	re := m.re
	if re == nil {
		re = regexp.MustCompile(m.Path)
	}
	return re.MatchString(r.Path)
}

// Rule is one fault for the requests it matches.
type Rule struct {
	Kind Kind
	Match
	Code       int           // Status, StatusAfterForward: the HTTP status answered
	RetryAfter time.Duration // Status: sent as Retry-After (whole seconds, at least 1)
	Delay      time.Duration // Delay: before forwarding; CutWatch: how long the request may run
	Skip       int           // matching requests let through untouched first
	Times      int           // how many matching requests it applies to after Skip; 0 means all
}

// armed is a Rule with its use counts.
type armed struct {
	Rule
	seen, applied int
}

// arm validates r and compiles its path.
func arm(r Rule) (*armed, error) {
	if _, ok := faults[r.Kind]; !ok {
		return nil, fmt.Errorf("fault proxy: unknown fault kind %q", r.Kind)
	}
	if (r.Kind == Status || r.Kind == StatusAfterForward) && (r.Code < 400 || r.Code > 599) {
		return nil, fmt.Errorf("fault proxy: %s rule needs an error Code (400-599), got %d", r.Kind, r.Code)
	}
	if r.Kind == CutWatch && r.Delay <= 0 {
		return nil, fmt.Errorf("fault proxy: %s rule needs a Delay", r.Kind)
	}
	if r.Path != "" {
		re, err := regexp.Compile(r.Path)
		if err != nil {
			return nil, fmt.Errorf("fault proxy: rule path %q: %w", r.Path, err)
		}
		r.re = re
	}
	return &armed{Rule: r}, nil
}

// take reports whether the rule applies to req, counting it. Callers hold
// the proxy's lock.
func (a *armed) take(req Request) bool {
	if !a.matches(req) {
		return false
	}
	a.seen++
	if a.seen <= a.Skip || a.Times > 0 && a.applied >= a.Times {
		return false
	}
	a.applied++
	return true
}
