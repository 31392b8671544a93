// Package specerr reports the problems of a spec file (release.toml,
// build.toml, build.lock) by file, line and dotted key, the way every bad
// input is reported: "release.toml:12: checks[0].http.port: out of range".
// It knows nothing of the files' contents: each parser finds the line of a
// key with its own Lines.
package specerr

import (
	"errors"
	"fmt"

	pub "github.com/pynenc/piceli/specerr"
)

// Error is one problem in a spec file; it lives in the public package
// specerr, where users read it.
type Error = pub.Error

// Lines finds the line that defines a dotted key, or of its nearest
// parent, or 0.
type Lines interface {
	Line(key string) int
}

// List collects the problems of one file, each placed on its key's line.
// The zero value is not usable: set File and Lines.
type List struct {
	File  string
	Lines Lines
	Errs  []error // *Error values, in the order found
}

// Add records a problem with key, at key's line.
func (l *List) Add(key, format string, args ...any) {
	l.Errs = append(l.Errs, &Error{File: l.File, Line: l.Lines.Line(key), Key: key, Msg: fmt.Sprintf(format, args...)})
}

// Err joins the problems recorded, nil when there are none.
func (l *List) Err() error { return errors.Join(l.Errs...) }

// Optional returns *v, or def when v is absent; an empty value is
// recorded as a problem of key (omitting the key is how to ask for def).
func (l *List) Optional(key string, v *string, def string) string {
	switch {
	case v == nil:
		return def
	case *v == "":
		l.Add(key, "must not be empty; omit it for the default %q", def)
		return def
	}
	return *v
}
