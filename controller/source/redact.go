package source

import (
	"errors"
	"net/url"
	"regexp"

	"github.com/pynenc/piceli/internal/redact"
)

// scrubber takes credential values and URL userinfo out of errors before
// they leave the package: an error may reach a status or a log.
type scrubber struct{ r redact.Redactor }

func newScrubber(creds Credentials, extra ...string) scrubber {
	var values [][]byte
	for _, v := range creds {
		values = append(values, v)
	}
	for _, v := range extra {
		values = append(values, []byte(v))
	}
	return scrubber{r: redact.New(values)}
}

// userinfoRE is the userinfo of a URL: scheme://USERINFO@host.
var userinfoRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@`)

// clean is s without credentials.
func (s scrubber) clean(text string) string {
	return s.r.Redact(userinfoRE.ReplaceAllString(text, "${1}"))
}

// wrap returns err with its text cleaned. A *SpecError stays one (its
// Reason cleaned); any other error still unwraps to err, so callers can
// tell a cancelled context, but its text is the cleaned one.
func (s scrubber) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *SpecError
	if errors.As(err, &se) {
		return &SpecError{Field: se.Field, Reason: s.clean(se.Reason)}
	}
	return &cleanError{msg: s.clean(err.Error()), err: err}
}

// cleanError is an error whose text had its credentials taken out.
type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }

// stripURL is u without its userinfo, for messages.
func stripURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return userinfoRE.ReplaceAllString(raw, "${1}")
	}
	u.User = nil
	return u.String()
}
