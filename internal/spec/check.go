package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// checks validates [[checks]]; s holds the tables already validated (the
// images a job check may name).
func (p *parser) checks(raw []rawCheck, s *Spec) []Check {
	var out []Check
	names := map[string]int{}
	for i, r := range raw {
		c := p.check(fmt.Sprintf("checks[%d]", i), r, s)
		if prev, dup := names[c.Name]; dup && c.Name != "" {
			p.errs.Add(fmt.Sprintf("checks[%d].name", i), "check %q is already declared by checks[%d]", c.Name, prev)
		}
		names[c.Name] = i
		out = append(out, c)
	}
	return out
}

// check validates one check; key is its indexed path.
func (p *parser) check(key string, r rawCheck, s *Spec) Check {
	c := Check{Name: p.required(key+".name", r.Name, "")}
	kinds := 0
	for _, set := range []bool{r.HTTP != nil, r.TCP != nil, r.Command != nil, r.Job != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		p.errs.Add(key, "check %q sets %d of http, tcp, command and job; set exactly one", c.Name, kinds)
		return c
	}
	switch {
	case r.HTTP != nil:
		c.HTTP = p.httpCheck(key+".http", c.Name, *r.HTTP)
	case r.TCP != nil:
		c.TCP = p.tcpCheck(key+".tcp", c.Name, *r.TCP)
	case r.Command != nil:
		c.Command = p.commandCheck(key+".command", c.Name, *r.Command)
	default:
		c.Job = p.jobCheck(key+".job", c.Name, *r.Job, s)
	}
	p.timing(key, r, &c)
	return c
}

// timing validates a check's timeout, retries and backoff, defaulting them
// by kind.
func (p *parser) timing(key string, r rawCheck, c *Check) {
	def := map[string]time.Duration{CheckHTTP: DefaultHTTPTimeout, CheckTCP: DefaultTCPTimeout, CheckCommand: DefaultCommandTimeout, CheckJob: DefaultJobTimeout}
	c.Timeout = p.bounded(key+".timeout", c.Name, r.Timeout, def[c.Kind()], MaxCheckTimeout)
	c.Backoff = p.bounded(key+".backoff", c.Name, r.Backoff, DefaultBackoff, MaxCheckBackoff)
	if c.HTTP != nil || c.TCP != nil {
		c.Retries = DefaultNetworkRetries
	}
	if r.Retries != nil {
		c.Retries = *r.Retries
		if c.Retries < 0 || c.Retries > MaxCheckRetries {
			p.errs.Add(key+".retries", "check %q: %d retries must be within 0-%d", c.Name, c.Retries, MaxCheckRetries)
		}
	}
}

// bounded parses an optional duration within (0, limit], def when absent.
func (p *parser) bounded(key, name string, v *string, def, limit time.Duration) time.Duration {
	if v == nil {
		return def
	}
	d := p.duration(key, v)
	if d > limit {
		p.errs.Add(key, "check %q: %s is longer than the limit of %s", name, d, limit)
	}
	return d
}

// httpCheck validates an http check.
func (p *parser) httpCheck(key, name string, r rawHTTP) *HTTPCheck {
	h := &HTTPCheck{
		Service:      p.service(key, name, r.Service),
		Port:         p.port(key, name, r.Port),
		Path:         "/",
		ExpectStatus: 200,
		Method:       "GET",
		Headers:      r.Headers,
	}
	if r.Path != nil {
		h.Path = *r.Path
		if len(h.Path) == 0 || h.Path[0] != '/' {
			p.errs.Add(key+".path", "check %q: path %q must start with /", name, h.Path)
		}
	}
	if r.ExpectStatus != nil {
		h.ExpectStatus = *r.ExpectStatus
		if h.ExpectStatus < 100 || h.ExpectStatus > 599 {
			p.errs.Add(key+".expect_status", "check %q: status %d must be within 100-599", name, h.ExpectStatus)
		}
	}
	if r.Method != nil {
		h.Method = *r.Method
		if !httpguts.ValidHeaderFieldName(h.Method) || strings.ToUpper(h.Method) != h.Method {
			p.errs.Add(key+".method", "check %q: %q is not an HTTP method; write it in upper case, such as \"GET\" or \"POST\"", name, h.Method)
		}
	}
	p.headers(key+".headers", name, r.Headers)
	h.BodyContains = p.optionalText(key+".body_contains", name, r.BodyContains)
	h.BodyRegexp = p.optionalText(key+".body_regexp", name, r.BodyRegexp)
	if _, err := regexp.Compile(h.BodyRegexp); err != nil {
		p.errs.Add(key+".body_regexp", "check %q: %v", name, err)
	}
	return h
}

// headers checks header names and values; values are never quoted in an
// error, since a header may carry a token.
func (p *parser) headers(key, name string, hs map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(hs)) {
		switch {
		case !httpguts.ValidHeaderFieldName(k):
			p.errs.Add(key, "check %q: %q is not a valid header name", name, k)
		case !httpguts.ValidHeaderFieldValue(hs[k]):
			p.errs.Add(joinKey(key, k), "check %q: the value of header %s holds characters a header cannot carry", name, k)
		}
	}
}

// optionalText returns *v, "" when absent, or records that it is empty.
func (p *parser) optionalText(key, name string, v *string) string {
	if v == nil {
		return ""
	}
	if *v == "" {
		p.errs.Add(key, "check %q: must not be empty; omit it to not look at the body", name)
	}
	return *v
}

// tcpCheck validates a tcp check.
func (p *parser) tcpCheck(key, name string, r rawTCP) *TCPCheck {
	return &TCPCheck{Service: p.service(key, name, r.Service), Port: p.port(key, name, r.Port)}
}

// commandCheck validates a command check.
func (p *parser) commandCheck(key, name string, r rawCommand) *CommandCheck {
	c := &CommandCheck{Run: r.Run, Dir: p.dir, Services: r.Services}
	switch {
	case len(r.Run) == 0:
		p.errs.Add(key+".run", "required by check %q: the program and its arguments, such as [\"./smoke.sh\", \"--quick\"]", name)
	case r.Run[0] == "":
		p.errs.Add(key+".run", "check %q: the program (run[0]) must not be empty", name)
	}
	if r.Dir != nil {
		c.Dir = p.path(p.errs.Optional(key+".dir", r.Dir, "."))
	}
	for i, svc := range r.Services {
		p.label(fmt.Sprintf("%s.services[%d]", key, i), svc)
	}
	return c
}

// jobCheck validates a job check: a copy of a composition Job (from) or a
// Job of the check's own (image, command, args).
func (p *parser) jobCheck(key, name string, r rawJob, s *Spec) *JobCheck {
	j := &JobCheck{Command: r.Command, Args: r.Args, Annotations: r.Annotations}
	switch {
	case r.From != nil && r.Image != nil:
		p.errs.Add(key, "check %q sets both from and image; run a Job of the composition (from) or declare one (image)", name)
	case r.From != nil:
		j.From = p.required(key+".from", r.From, "")
		p.label(key+".from", j.From)
		if len(r.Command) > 0 || len(r.Args) > 0 {
			p.errs.Add(key, "check %q: command and args belong to a Job the check declares (image), not to one it copies (from)", name)
		}
	case r.Image != nil:
		j.Image = p.jobImage(key+".image", name, *r.Image, s)
	default:
		p.errs.Add(key, "check %q sets neither from nor image; name a Job of the composition or an image to run", name)
	}
	return j
}

// jobImage resolves a job check's image: a key of [images], else a
// reference, which must be pinned when the release requires it.
func (p *parser) jobImage(key, name, v string, s *Spec) string {
	if ref, ok := s.Images[v]; ok {
		return ref
	}
	switch {
	case v == "":
		p.errs.Add(key, "check %q: must not be empty", name)
	case s.Release.RequirePinnedImages && !Pinned(v):
		p.errs.Add(key, "check %q: %q is not pinned by digest, which release.require_pinned_images requires; pin it or name a key of [images]", name, v)
	}
	return v
}

// service validates the service a check reaches.
func (p *parser) service(key, name string, v *string) string {
	s := p.required(key+".service", v, fmt.Sprintf(" by check %q", name))
	p.label(key+".service", s)
	return s
}

// port validates the port a check reaches.
func (p *parser) port(key, name string, v *int) int {
	switch {
	case v == nil:
		p.errs.Add(key+".port", "required by check %q", name)
		return 0
	case *v < 1 || *v > 65535:
		p.errs.Add(key+".port", "check %q: port %d must be within 1-65535", name, *v)
	}
	return *v
}
