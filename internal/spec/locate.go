package spec

import (
	"strconv"
	"strings"
)

// locator maps keys of a TOML document to the lines that define them. Keys
// are dotted paths with array-of-table indexes, such as checks[1].http.port.
// It runs only on input the TOML parser has accepted, so it can afford to be
// a line scanner: table headers, key = value lines, one-line inline tables,
// and multi-line strings (skipped).
type locator struct {
	lines  map[string]int      // indexed path -> first line
	byKey  map[string][]string // path without indexes -> indexed paths, in source order
	arrays map[string]int      // array-of-tables path -> elements seen so far
	prefix string              // the current table
}

// locate scans src and returns its locator.
func locate(src string) *locator {
	l := &locator{lines: map[string]int{}, byKey: map[string][]string{}, arrays: map[string]int{}}
	closing := ""
	for i, text := range strings.Split(src, "\n") {
		if closing != "" {
			if strings.Contains(text, closing) {
				closing = ""
			}
			continue
		}
		closing = l.scanLine(strings.TrimSpace(text), i+1)
	}
	return l
}

// Line returns the line of key, or else the first line of a key under it
// (a table defined only by its subtables, [a.b.c] for a.b), or else of
// its nearest such parent, or 0.
func (l *locator) Line(key string) int {
	for key != "" {
		if n, ok := l.lines[key]; ok {
			return n
		}
		if n := l.firstUnder(key); n > 0 {
			return n
		}
		key = parentKey(key)
	}
	return 0
}

// firstUnder returns the first line of a key under key, or 0.
func (l *locator) firstUnder(key string) int {
	first := 0
	for k, n := range l.lines {
		if (strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[")) && (first == 0 || n < first) {
			first = n
		}
	}
	return first
}

// indexed returns the indexed path of the n-th occurrence (0-based) of a
// path written without indexes, or the path itself when it was not seen.
func (l *locator) indexed(plain string, n int) string {
	if paths := l.byKey[plain]; n < len(paths) {
		return paths[n]
	}
	return plain
}

// scanLine records what one trimmed line defines. It returns the closing
// delimiter when the line opens a multi-line string.
func (l *locator) scanLine(text string, line int) string {
	switch {
	case text == "" || text[0] == '#':
		return ""
	case strings.HasPrefix(text, "[["):
		l.arrayHeader(text[2:], line)
		return ""
	case text[0] == '[':
		l.tableHeader(text[1:], line)
		return ""
	}
	parts, rest, ok := parseKey(text)
	if !ok || !strings.HasPrefix(rest, "=") {
		return ""
	}
	path := l.resolve(l.prefix, parts)
	l.record(path, line)
	return l.value(path, strings.TrimSpace(rest[1:]), line)
}

// value records the keys of an inline table value and reports a multi-line
// string opened by it.
func (l *locator) value(path, v string, line int) string {
	if strings.HasPrefix(v, "{") {
		l.inline(path, v[1:], line)
		return ""
	}
	for _, delim := range []string{`"""`, `'''`} {
		if strings.HasPrefix(v, delim) && !strings.Contains(v[3:], delim) {
			return delim
		}
	}
	return ""
}

// tableHeader handles "[a.b]".
func (l *locator) tableHeader(text string, line int) {
	parts, _, ok := parseKey(text)
	if !ok {
		return
	}
	l.prefix = l.resolve("", parts)
	l.record(l.prefix, line)
}

// arrayHeader handles "[[a.b]]": a new element of the array of tables a.b.
func (l *locator) arrayHeader(text string, line int) {
	parts, _, ok := parseKey(text)
	if !ok {
		return
	}
	array := joinKey(l.resolve("", parts[:len(parts)-1]), parts[len(parts)-1])
	n := l.arrays[array]
	l.arrays[array] = n + 1
	if n == 0 {
		l.record(array, line)
	}
	l.prefix = array + "[" + strconv.Itoa(n) + "]"
	l.record(l.prefix, line)
}

// resolve appends parts to base, indexing arrays of tables at their
// latest element as TOML does.
func (l *locator) resolve(base string, parts []string) string {
	path := base
	for _, p := range parts {
		path = joinKey(path, p)
		if n, ok := l.arrays[path]; ok {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return path
}

// record notes the first line of path.
func (l *locator) record(path string, line int) {
	if _, ok := l.lines[path]; ok {
		return
	}
	l.lines[path] = line
	plain := stripIndexes(path)
	l.byKey[plain] = append(l.byKey[plain], path)
}

// inline records the keys of a one-line inline table; s follows the "{".
func (l *locator) inline(path, s string, line int) {
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" || s[0] == '}' {
			return
		}
		parts, rest, ok := parseKey(s)
		if !ok || !strings.HasPrefix(rest, "=") {
			return
		}
		key := joinKey(path, strings.Join(parts, "."))
		l.record(key, line)
		v := strings.TrimLeft(rest[1:], " \t")
		if strings.HasPrefix(v, "{") {
			l.inline(key, v[1:], line)
		}
		s = skipValue(v)
	}
}
