// Package objjson encodes the values of an unstructured Kubernetes object
// (map[string]any, []any, string, int64, bool, nil) to JSON byte for byte as
// encoding/json does, without reflection. Digests, plans and revisions
// encode every manifest of a release, so encoding/json's reflection was a
// large part of a no-op apply's time; anything else (floats, other types)
// is left to encoding/json, so the output never differs from json.Marshal.
package objjson

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Marshal returns json.Marshal(v), encoding unstructured values itself.
func Marshal(v any) ([]byte, error) {
	if out, ok := Append(make([]byte, 0, 512), v); ok {
		return out, nil
	}
	return json.Marshal(v)
}

// Append appends v's JSON encoding to dst, as json.Marshal would write it,
// and reports true; or, when v holds a value it leaves to encoding/json,
// it reports false and the returned slice is to be ignored.
func Append(dst []byte, v any) ([]byte, bool) {
	return appendValue(dst, v, 0)
}

// maxDepth is how deep a value may nest before it is left to
// encoding/json, which reports a cycle (a map holding itself) as an error
// where recursion here would not end.
const maxDepth = 1000

// appendValue is Append of a value nested depth levels deep.
func appendValue(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendString(dst, x), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case map[string]any:
		return appendObject(dst, x, depth)
	case []any:
		return appendArray(dst, x, depth)
	}
	return dst, false
}

// appendObject writes m with its keys in sorted order, as encoding/json
// does for a map; a nil map is null.
func appendObject(dst []byte, m map[string]any, depth int) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendValue(dst, m[k], depth+1); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendArray writes a; a nil slice is null.
func appendArray(dst []byte, a []any, depth int) ([]byte, bool) {
	if a == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendValue(dst, e, depth+1); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

const hexDigits = "0123456789abcdef"

// appendString writes s quoted with encoding/json's escapes: quote and
// backslash; \b \f \n \r \t; other control bytes, and < > & (HTML-safe
// output), as \u00XX; U+2028 and U+2029 as \u2028 and \u2029; each byte of
// invalid UTF-8 as \ufffd.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plain(b) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain tells whether an ASCII byte is written as it is.
func plain(b byte) bool {
	return b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
}

// appendEscape writes the escape of an ASCII byte that is not plain.
func appendEscape(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}
