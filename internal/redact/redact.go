package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"strings"
)

// Mark replaces each secret value found.
const Mark = "[secret]"

// MinSecret is the shortest form a Redactor looks for: shorter ones would
// blot out ordinary text, and no generated value is that short.
const MinSecret = 6

// Redactor takes secret values out of text. The zero value redacts
// nothing. It is safe for concurrent use.
//
// For each value it finds, with any whitespace (spaces, tabs, line breaks)
// inside the text ignored, so a value split across lines or wrapped at
// any width is found:
//   - the value itself, and each line of a value of several lines;
//   - base64 in the standard and URL alphabets, padded or not, and the
//     characters the value fixes when it sits at any offset inside longer
//     base64 (the three alignments);
//   - hex, upper- or lower-case, plain or byte-spaced (`od -An -tx1`,
//     `xxd`, `xxd -p`, `hexdump -C`); in a dump with offsets each line the
//     value touches goes whole, its character column included;
//   - base32 (RFC 4648 alphabet), upper- or lower-case, padded or not, at
//     any of the five alignments inside longer base32;
//   - URL query escaping and JSON string escaping.
//
// It does not find a value encrypted, hashed, compressed, reversed,
// byte-swapped (`od -x`), split by other characters than whitespace, or
// encoded twice.
type Redactor struct {
	exact  []string // matched as they are
	folded []string // lower-case; matched case-insensitively
}

// New returns a Redactor for values.
func New(values [][]byte) Redactor {
	var r Redactor
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		s = squeeze(s)
		if len(s) >= MinSecret && !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	for _, v := range values {
		for _, s := range exactForms(v) {
			add(&r.exact, s)
		}
		for _, s := range foldedForms(v) {
			add(&r.folded, strings.ToLower(s))
		}
	}
	return r
}

// Strings is New for values held as strings.
func Strings(values ...string) Redactor {
	bs := make([][]byte, 0, len(values))
	for _, v := range values {
		bs = append(bs, []byte(v))
	}
	return New(bs)
}

// Empty says whether r redacts nothing.
func (r Redactor) Empty() bool { return len(r.exact) == 0 && len(r.folded) == 0 }

// exactForms are the case-sensitive forms of v.
func exactForms(v []byte) []string {
	s := string(v)
	out := []string{s, base64.StdEncoding.EncodeToString(v), base64.RawStdEncoding.EncodeToString(v),
		base64.URLEncoding.EncodeToString(v), base64.RawURLEncoding.EncodeToString(v),
		url.QueryEscape(s), jsonEscape(s)}
	out = append(out, base64Inner(v)...)
	for line := range strings.SplitSeq(s, "\n") {
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// foldedForms are the forms of v whose letters' case carries nothing.
func foldedForms(v []byte) []string {
	out := []string{hex.EncodeToString(v), base32.StdEncoding.EncodeToString(v),
		base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(v)}
	return append(out, base32Inner(v)...)
}

// base64Inner returns the base64 characters v fixes wherever it starts
// inside a longer base64 text (one form per offset modulo three, in both
// alphabets).
func base64Inner(v []byte) []string {
	var out []string
	for off := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), v...))
		from, to := 4*((off+2)/3), 4*((off+len(v))/3)
		if from < to {
			out = append(out, enc[from:to], strings.NewReplacer("+", "-", "/", "_").Replace(enc[from:to]))
		}
	}
	return out
}

// base32Inner returns the base32 characters v fixes wherever it starts
// inside a longer base32 text (one form per offset modulo five): those
// whose five bits all come from v.
func base32Inner(v []byte) []string {
	var out []string
	for off := range 5 {
		enc := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(append(make([]byte, off), v...))
		from, to := (8*off+4)/5, 8*(off+len(v))/5
		if from < to {
			out = append(out, enc[from:to])
		}
	}
	return out
}

// jsonEscape returns s as a JSON string holds it, without the quotes.
func jsonEscape(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}

// squeeze drops the whitespace of s, as the views of a text do.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if isSpace(byte(r)) && r < 0x80 {
			return -1
		}
		return r
	}, s)
}

func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// MinEnviron is the shortest environment value Environ takes for a
// secret.
const MinEnviron = 8

// Environ returns the values of the process's environment at least
// MinEnviron bytes long: tools' output and errors may quote them, and any
// of them may be a credential.
func Environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if _, v, _ := strings.Cut(kv, "="); len(v) >= MinEnviron {
			out = append(out, v)
		}
	}
	return out
}
