package spec

import (
	"fmt"
	"strconv"
)

// Error is one problem in a release.toml. File is the path as given to Load
// or Parse; Line is 1-based, or 0 when no line is known; Key is the dotted
// key (with array indexes, such as checks[1].http.port), or empty when the
// problem concerns the whole file.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error formats the problem as "file:line: key: message".
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

// errorList collects the problems of one file, each placed on its key's line.
type errorList struct {
	file string
	loc  *locator
	errs []error
}

// add records msg for key, at the line of key (or of its nearest parent).
func (l *errorList) add(key, format string, args ...any) {
	l.errs = append(l.errs, &Error{
		File: l.file,
		Line: l.loc.line(key),
		Key:  key,
		Msg:  fmt.Sprintf(format, args...),
	})
}
