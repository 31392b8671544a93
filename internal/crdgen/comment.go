package crdgen

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// commentLines turns input text (a description) into the lines of a Go
// line comment: it splits at every line break a reader could see ("\n",
// "\r", U+0085, U+2028, U+2029), writes every other control character, a
// byte order mark and every byte that is not UTF-8 as a Go escape
// (\x00, \u200e, ...), and trims trailing space. A line comment ends only
// at a newline, and none is left, so no text can end the comment and start
// code ("*/" is inert in a line comment). Blank lines between paragraphs
// become one empty line; leading and trailing ones are dropped.
func commentLines(text string) []string {
	var out []string
	blank := false
	for _, l := range splitLines(strings.ReplaceAll(text, "\r\n", "\n")) {
		l = strings.TrimRight(inertLine(l), " ")
		if strings.TrimSpace(l) == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return out
}

func isLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029'
}

// splitLines cuts s at every rune isLineBreak accepts.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i, r := range s {
		if isLineBreak(r) {
			lines = append(lines, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(lines, s[start:])
}

// inertLine escapes what must not reach Go source raw: control characters
// other than tab, DEL and C1 controls, U+FEFF, bidirectional overrides and
// bytes that are not UTF-8.
func inertLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == '\ufeff' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// oneLine is the text as one comment line: its lines joined by spaces.
func oneLine(text string) string {
	return strings.Join(commentLines(text), " ")
}
