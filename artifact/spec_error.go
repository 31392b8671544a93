package artifact

import (
	"fmt"
	"strconv"
)

// SpecError is one problem in a build.toml or its lock file: the file as
// given, the 1-based line (0 when unknown), the dotted key (empty for the
// whole file) and what is wrong.
type SpecError struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error formats the problem as "file:line: key: message".
func (e *SpecError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// specErrors collects the problems of one file, each on its key's line.
type specErrors struct {
	file string
	loc  *keyLines
	errs []error
}

func (l *specErrors) add(key, format string, args ...any) {
	l.errs = append(l.errs, &SpecError{File: l.file, Line: l.loc.line(key), Key: key, Msg: fmt.Sprintf(format, args...)})
}
