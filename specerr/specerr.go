// Package specerr is the error of a bad spec file (release.toml,
// build.toml, build.lock): the file, line and dotted key of the problem,
// formatted "release.toml:12: checks[0].http.port: out of range". The
// public packages return it (wrapped or joined) for bad input; it imports
// nothing of Piceli but the refusal leaf: every problem in a spec file is
// a refusal (refusal.Is).
package specerr

import (
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

// EnvironmentError is the refusal of the environment asked of a spec that
// declares [environments]: none when it declares some, one it does not
// declare, or one when it declares none. It wraps the *Error that says so
// (file, line, key), so errors.As finds either.
type EnvironmentError struct {
	Err      *Error
	Asked    string   // the environment asked for, maybe empty
	Declared []string // the environments the spec declares, sorted; nil when none
}

// Error is the wrapped *Error's.
func (e *EnvironmentError) Error() string { return e.Err.Error() }

// Unwrap returns the *Error.
func (e *EnvironmentError) Unwrap() error { return e.Err }
