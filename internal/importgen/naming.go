package importgen

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
)

// reserved are the names generated code uses itself, Go's predeclared
// identifiers and the package names it imports.
var reserved = []string{
	"a", "ctx", "app", "ptr", "resource", "intstr", "metav1", "time", "Build",
	"bool", "byte", "error", "string", "rune", "int", "int32", "int64", "uint", "float64",
	"any", "true", "false", "nil", "iota", "len", "cap", "new", "make", "append", "copy",
	"delete", "panic", "print", "println", "recover", "close", "min", "max", "clear",
}

// identifiers hands out Go identifiers, each at most once.
type identifiers struct {
	used map[string]bool
}

func newIdentifiers() *identifiers {
	ids := &identifiers{used: map[string]bool{}}
	for _, r := range reserved {
		ids.used[r] = true
	}
	return ids
}

// reserve marks names as taken (package aliases of k8s.io/api, say).
func (ids *identifiers) reserve(names ...string) {
	for _, n := range names {
		ids.used[n] = true
	}
}

// take returns the first free candidate, or the first one numbered.
func (ids *identifiers) take(candidates ...string) string {
	for _, c := range candidates {
		if c != "" && !ids.used[c] && !token.IsKeyword(c) {
			ids.used[c] = true
			return c
		}
	}
	for i := 2; ; i++ {
		c := fmt.Sprintf("%s%d", candidates[0], i)
		if !ids.used[c] {
			ids.used[c] = true
			return c
		}
	}
}

// camel turns an object name into a lower camel-case identifier:
// "api-config" becomes apiConfig, "system:metrics" systemMetrics. A name
// that starts with a digit gets prefix in front ("1st" with prefix
// "configMap" becomes configMap1st).
func camel(name, prefix string) string {
	words := strings.FieldsFunc(name, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	})
	var b strings.Builder
	for i, w := range words {
		if i == 0 {
			b.WriteString(lowerFirst(w))
			continue
		}
		b.WriteString(upperFirst(w))
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = prefix + upperFirst(s)
	}
	return s
}

// pascal is camel with its first letter upper case.
func pascal(name string) string { return upperFirst(camel(name, "x")) }

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// packageName turns an app name into a Go package name: letters and
// digits, starting with a letter, not "app" nor a keyword.
func packageName(app string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(app) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) || token.IsKeyword(s) || s == "app" || s == "main" {
		s = "infra" + s
	}
	return s
}
