package plan

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Everything a plan holds comes from a release or a cluster, and is
// escaped before it reaches Markdown. Names, paths and values go in code
// spans, where Markdown, HTML and mentions are not interpreted; the
// characters that could still end a code span or a table cell (backticks,
// pipes, line breaks) never appear in one raw. Prose goes through text.

// code is s as an inline code span. A plain s is shown as it is; any
// other is shown Go-quoted (escaping backslashes, quotes and every
// non-graphic rune, bidirectional controls included) with its pipes and
// backticks as \x7c and \x60, so the span holds neither.
func code(s string) string {
	if !plain(s) {
		s = strconv.QuoteToGraphic(s)
		s = strings.NewReplacer("|", `\x7c`, "`", `\x60`).Replace(s)
	}
	return "`" + s + "`"
}

// plain reports whether s can stand in a code span as it is: not empty,
// no space at either end (a code span strips one), and only graphic
// runes other than backslash, pipe and backtick.
func plain(s string) bool {
	if s == "" || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == '\\' || r == '|' || r == '`' {
			return false
		}
	}
	return true
}

// graphicJSON escapes, in JSON text, the runes that are not graphic and
// the pipes and backticks as \uXXXX: still the same JSON value, with
// nothing that can end a code span or a table cell, nor reorder text.
func graphicJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsGraphic(r) && r != '|' && r != '`' {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// text is s as Markdown text that reads as s: every ASCII punctuation
// character backslash-escaped (no emphasis, link, HTML, entity or table
// cell can start), every "@" followed by a word joiner (no mention), and
// runes that are not graphic shown as \uXXXX.
func text(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '@':
			b.WriteString("\\@\u2060")
		case r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r):
			b.WriteString("\\" + string(r))
		case !unicode.IsGraphic(r):
			fmt.Fprintf(&b, `\\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fenced is s in a fenced code block whose fence is longer than any run
// of backticks in s, so s cannot close it; a line break in s is shown
// as \n, so s stays one line a reviewer can copy.
func fenced(s string) string {
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "sh\n" + s + "\n" + fence + "\n"
}

// longestRun is the length of the longest run of r in s.
func longestRun(s string, r rune) int {
	longest, n := 0, 0
	for _, c := range s {
		if c != r {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}
