package spec

import "fmt"

// checks validates [[checks]].
func (p *parser) checks(raw []rawCheck) []Check {
	var out []Check
	names := map[string]int{}
	for i, r := range raw {
		c := p.check(fmt.Sprintf("checks[%d]", i), r)
		if prev, dup := names[c.Name]; dup && c.Name != "" {
			p.errs.add(fmt.Sprintf("checks[%d].name", i), "check %q is already declared by checks[%d]", c.Name, prev)
		}
		names[c.Name] = i
		out = append(out, c)
	}
	return out
}

// check validates one check; key is its indexed path.
func (p *parser) check(key string, r rawCheck) Check {
	c := Check{Name: p.required(key+".name", r.Name, "")}
	switch {
	case r.HTTP != nil && r.TCP != nil:
		p.errs.add(key, "check %q sets both http and tcp; set exactly one", c.Name)
	case r.HTTP != nil:
		c.HTTP = p.httpCheck(key+".http", c.Name, *r.HTTP)
	case r.TCP != nil:
		c.TCP = p.tcpCheck(key+".tcp", c.Name, *r.TCP)
	default:
		p.errs.add(key, "check %q sets neither http nor tcp; set exactly one", c.Name)
	}
	return c
}

// httpCheck validates an http check.
func (p *parser) httpCheck(key, name string, r rawHTTP) *HTTPCheck {
	h := &HTTPCheck{
		Service:      p.service(key, name, r.Service),
		Port:         p.port(key, name, r.Port),
		Path:         "/",
		ExpectStatus: 200,
	}
	if r.Path != nil {
		h.Path = *r.Path
		if len(h.Path) == 0 || h.Path[0] != '/' {
			p.errs.add(key+".path", "check %q: path %q must start with /", name, h.Path)
		}
	}
	if r.ExpectStatus != nil {
		h.ExpectStatus = *r.ExpectStatus
		if h.ExpectStatus < 100 || h.ExpectStatus > 599 {
			p.errs.add(key+".expect_status", "check %q: status %d must be within 100-599", name, h.ExpectStatus)
		}
	}
	return h
}

// tcpCheck validates a tcp check.
func (p *parser) tcpCheck(key, name string, r rawTCP) *TCPCheck {
	return &TCPCheck{Service: p.service(key, name, r.Service), Port: p.port(key, name, r.Port)}
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
		p.errs.add(key+".port", "required by check %q", name)
		return 0
	case *v < 1 || *v > 65535:
		p.errs.add(key+".port", "check %q: port %d must be within 1-65535", name, *v)
	}
	return *v
}
