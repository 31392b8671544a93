package spec

import (
	"strconv"
	"strings"
)

// parseKey reads a dotted TOML key (bare, "basic" or 'literal' parts) from
// the start of s and returns its parts and the trimmed rest of s.
func parseKey(s string) (parts []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		part, after, ok := keyPart(s)
		if !ok {
			return nil, "", false
		}
		parts = append(parts, part)
		s = strings.TrimLeft(after, " \t")
		if !strings.HasPrefix(s, ".") {
			return parts, s, true
		}
		s = s[1:]
	}
}

// keyPart reads one part of a dotted key.
func keyPart(s string) (part, rest string, ok bool) {
	switch {
	case strings.HasPrefix(s, `"`):
		end := closingQuote(s)
		if end < 0 {
			return "", "", false
		}
		u, err := strconv.Unquote(s[:end+1])
		if err != nil {
			u = s[1:end]
		}
		return u, s[end+1:], true
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : end+1], s[end+2:], true
	}
	n := 0
	for n < len(s) && isBareKeyChar(s[n]) {
		n++
	}
	return s[:n], s[n:], n > 0
}

// closingQuote returns the index of the '"' closing the basic string that
// opens s, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func isBareKeyChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipValue returns what follows the inline value at the start of s.
func skipValue(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			if end := closingQuote(s[i:]); end > 0 {
				i += end
			}
		case c == '\'':
			if end := strings.IndexByte(s[i+1:], '\''); end >= 0 {
				i += end + 1
			}
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case (c == ',' || c == '}') && depth == 0:
			return s[i:]
		}
	}
	return ""
}

// joinKey appends part to a dotted path.
func joinKey(path, part string) string {
	if path == "" {
		return part
	}
	return path + "." + part
}

// parentKey drops the last part or index of a path.
func parentKey(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// stripIndexes turns checks[1].http into checks.http.
func stripIndexes(path string) string {
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}
