package redact

import (
	"slices"
	"strings"
)

// view is a text with its whitespace dropped, each byte remembering where
// it stood, so a match in the view is a span of the text.
type view struct {
	b    []byte
	at   []int  // offset in the text of each byte of b
	dump []bool // whether that byte came from a hex dump line
}

func (v *view) keep(text string, from, to int, dump bool) {
	for i := from; i < to; i++ {
		if !isSpace(text[i]) {
			v.b, v.at, v.dump = append(v.b, text[i]), append(v.at, i), append(v.dump, dump)
		}
	}
}

// exactView is text without whitespace.
func exactView(text string) *view {
	v := &view{}
	v.keep(text, 0, len(text), false)
	return v
}

// foldedView is text without whitespace, lower-cased, where each line of a
// hex dump with offsets keeps only its hex groups.
func foldedView(text string) *view {
	v := &view{}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		if from, to, ok := dumpLine(text[start:end]); ok {
			v.keep(text, start+from, start+to, true)
		} else {
			v.keep(text, start, end, false)
		}
		start = end
	}
	for i, c := range v.b {
		if 'A' <= c && c <= 'Z' {
			v.b[i] = c + 'a' - 'A'
		}
	}
	return v
}

// dumpLine finds the hex groups of a hex dump line (xxd, hexdump -C, od
// -tx1): an offset of at least six hex digits, maybe with a colon, then
// groups of at most eight hex digits. It returns their span in line.
func dumpLine(line string) (from, to int, ok bool) {
	fields := fieldSpans(line)
	if len(fields) < 2 || !isOffset(line[fields[0][0]:fields[0][1]]) {
		return 0, 0, false
	}
	from, to = fields[1][0], fields[1][0]
	for _, f := range fields[1:] {
		if !isGroup(line[f[0]:f[1]]) {
			break
		}
		to = f[1]
	}
	return from, to, to > from
}

// fieldSpans are the spans of line's whitespace-separated fields.
func fieldSpans(line string) [][2]int {
	var out [][2]int
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func isOffset(s string) bool {
	s = strings.TrimSuffix(s, ":")
	return len(s) >= 6 && len(s) <= 16 && isHex(s)
}

func isGroup(s string) bool { return len(s) >= 2 && len(s) <= 8 && len(s)%2 == 0 && isHex(s) }

func isHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// spans are the text spans where needles occur in v; a match touching a
// dump line takes each of its lines whole.
func (v *view) spans(text string, needles []string) [][2]int {
	var out [][2]int
	s := string(v.b)
	for _, n := range needles {
		for from := 0; ; {
			i := strings.Index(s[from:], n)
			if i < 0 {
				break
			}
			i += from
			out = append(out, v.span(text, i, i+len(n)))
			from = i + 1
		}
	}
	return out
}

func (v *view) span(text string, i, j int) [2]int {
	a, b := v.at[i], v.at[j-1]+1
	if slices.Contains(v.dump[i:j], true) {
		a = strings.LastIndexByte(text[:a], '\n') + 1
		if k := strings.IndexByte(text[b:], '\n'); k >= 0 {
			b += k
		} else {
			b = len(text)
		}
	}
	return [2]int{a, b}
}

// Redact returns text with every span where a secret value is found
// replaced by Mark (overlapping spans as one).
func (r Redactor) Redact(text string) string {
	if r.Empty() || text == "" {
		return text
	}
	spans := append(exactView(text).spans(text, r.exact), foldedView(text).spans(text, r.folded)...)
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(x, y [2]int) int { return x[0] - y[0] })
	var sb strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		a, b := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] < b; i++ {
			b = max(b, spans[i][1])
		}
		sb.WriteString(text[last:a])
		sb.WriteString(Mark)
		last = b
	}
	sb.WriteString(text[last:])
	return sb.String()
}
