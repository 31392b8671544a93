package artifact

import (
	"regexp"
	"strconv"
	"strings"
)

// keyLines maps the dotted keys of a TOML document to the line that
// defines them. It is a line scanner for the shapes build.toml uses: table
// headers, key = value lines, inline tables on one line, and arrays of
// inline tables with one element per line. Keys it cannot place fall back
// to their parent's line.
type keyLines struct {
	lines map[string]int
}

var (
	headerRE = regexp.MustCompile(`^\[\s*([^\[\]]+?)\s*\]`)
	assignRE = regexp.MustCompile(`^("[^"]*"|[A-Za-z0-9_.-]+)\s*=`)
	inlineRE = regexp.MustCompile(`("[^"]*"|[A-Za-z0-9_-]+)\s*=`)
)

// scanKeyLines scans src, which the TOML parser accepted.
func scanKeyLines(src string) *keyLines {
	k := &keyLines{lines: map[string]int{}}
	table, array, elem := "", "", 0
	for i, raw := range strings.Split(src, "\n") {
		n, text := i+1, strings.TrimSpace(raw)
		switch {
		case text == "" || text[0] == '#':
		case array != "" && strings.HasPrefix(text, "]"):
			array = ""
		case array != "" && strings.HasPrefix(text, "{"):
			k.inline(array+"["+strconv.Itoa(elem)+"]", text, n)
			elem++
		case array != "":
		case headerRE.MatchString(text):
			table = unquoteKey(headerRE.FindStringSubmatch(text)[1])
			k.record(table, n)
		case assignRE.MatchString(text):
			key := joinKey(table, unquoteKey(assignRE.FindStringSubmatch(text)[1]))
			k.record(key, n)
			value := strings.TrimSpace(text[strings.Index(text, "=")+1:])
			if strings.HasPrefix(value, "{") {
				k.inline(key, value, n)
			}
			if strings.HasPrefix(value, "[") && !strings.Contains(value, "]") {
				array, elem = key, 0
			}
			if strings.HasPrefix(value, "[") && strings.Contains(value, "{") {
				k.elements(key, value, n)
			}
		}
	}
	return k
}

// inline records the keys of a one-line inline table at path.
func (k *keyLines) inline(path, text string, line int) {
	k.record(path, line)
	for _, m := range inlineRE.FindAllStringSubmatch(text, -1) {
		k.record(joinKey(path, unquoteKey(m[1])), line)
	}
}

// elements records the inline tables of a one-line array at path.
func (k *keyLines) elements(path, text string, line int) {
	for i, part := range strings.Split(text, "{")[1:] {
		k.inline(path+"["+strconv.Itoa(i)+"]", part, line)
	}
}

func (k *keyLines) record(key string, line int) {
	if _, ok := k.lines[key]; !ok {
		k.lines[key] = line
	}
}

// Line returns the line of key or of its nearest recorded parent, or 0.
func (k *keyLines) Line(key string) int {
	for key != "" {
		if n, ok := k.lines[key]; ok {
			return n
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			return 0
		}
		key = key[:i]
	}
	return 0
}

// unquoteKey turns `a."b.c"` into a.b.c and drops spaces around dots.
func unquoteKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

func joinKey(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}
