// Package specerr reports the problems of a spec file (release.toml,
// build.toml, build.lock) by file, line and dotted key, the way every bad
// input is reported: "release.toml:12: checks[0].http.port: out of range".
// It knows nothing of the files' contents: each parser finds the line of a
// key with its own Lines.
package specerr

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pynenc/piceli/refusal"
)

// Error is one problem in a spec file. File is the path as the user gave
// it; Line is 1-based, or 0 when no line is known; Key is the dotted key
// (with array indexes, such as checks[1].http.port), or empty when the
// problem concerns the whole file.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error formats the problem as "file:line: key: message", leaving out the
// line and the key when they are unknown.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// Is reports that a problem in a spec file is a refusal (refusal.Is):
// the file must change, nothing else was done.
func (e *Error) Is(target error) bool { return target == refusal.ErrRefused }

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
