package importgen

import (
	"fmt"
	"strconv"
	"strings"
)

// commentf formats a comment of generated code (Go or YAML) whose
// arguments come from input: each string argument is written as inert
// text (inert), so nothing in a name, namespace or path can end the
// comment or start code after it. The result holds no newline, so jen
// writes it as a line comment, which only a newline ends.
func commentf(format string, args ...any) string {
	for i, a := range args {
		args[i] = inert(fmt.Sprint(a))
	}
	return fmt.Sprintf(format, args...)
}

// inert returns s with every character a comment could end at, or a
// reader be misled by, escaped as a Go string literal escapes it (a
// newline becomes \n, a control character \x.., a quote \"): the body of
// strconv.Quote(s).
func inert(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// checkModulePath refuses a module path go.mod could not hold as one
// token: it allows ASCII letters, digits and "-._~/", in non-empty
// slash-separated elements none of which is "." or "..", as Go's module
// paths do.
func checkModulePath(p string) error {
	bad := p == "" || strings.HasPrefix(p, "/") || strings.ContainsFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~/", r))
	})
	for _, e := range strings.Split(p, "/") {
		bad = bad || e == "" || e == "." || e == ".."
	}
	if bad {
		return fmt.Errorf("import: module path %q: want letters, digits and -._~ in slash-separated elements", p)
	}
	return nil
}
