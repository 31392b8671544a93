package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of one object's row in Markdown, so that no single object can
// fill a comment.
const (
	mdFoldAfter = 5   // more field lines than this are folded in <details>
	mdMaxFields = 50  // field lines listed per object; the rest are counted
	mdMaxValue  = 100 // runes of a value's JSON shown
	mdMaxPath   = 200 // runes of a field path shown
)

// stepRow is one table row: the step's action, its object and its
// changed fields.
func stepRow(s Step) string {
	action := text(string(s.Action))
	if s.Blocked != "" {
		action += " (blocked)"
	}
	return fmt.Sprintf("| %s | %s | %s |\n", action, code(s.Ref.String()), fieldsCell(s))
}

// fieldsCell is a step's conflicts and changed fields, one per line,
// folded when there are more than mdFoldAfter and cut at mdMaxFields.
func fieldsCell(s Step) string {
	var lines []string
	for _, c := range s.Conflicts {
		lines = append(lines, fmt.Sprintf("conflict: manager %s owns %s", code(c.Manager), codeList(c.Fields)))
	}
	for _, c := range s.Reclaim {
		lines = append(lines, fmt.Sprintf("takes back %s from manager %s, which edited them", codeList(c.Fields), code(c.Manager)))
	}
	for _, c := range s.Changes {
		lines = append(lines, changeMD(c, s.Ref.IsSecret()))
	}
	if len(lines) <= mdFoldAfter {
		return strings.Join(lines, "<br>")
	}
	n := len(lines)
	if n > mdMaxFields {
		lines = append(lines[:mdMaxFields], fmt.Sprintf("… %d more", n-mdMaxFields))
	}
	return fmt.Sprintf("<details><summary>%d changed fields</summary>%s</details>", n, strings.Join(lines, "<br>"))
}

// changeMD is one changed field: its path, and for a field that is not a
// Secret's, its old and new value. A Secret's fields never show a value,
// whatever the change holds.
func changeMD(c Change, secret bool) string {
	path := code(cut(c.Path, mdMaxPath))
	switch {
	case secret || c.Hidden:
		return path + " " + text(string(c.Kind)) + " (value hidden)"
	case c.Kind == Added:
		return path + " added: " + value(c.To)
	case c.Kind == Removed:
		return path + " removed: " + value(c.From)
	case c.From == nil && c.To == nil:
		return path + " " + text(string(c.Kind))
	}
	return path + ": " + value(c.From) + " → " + value(c.To)
}

// value is a field value as compact JSON in a code span, cut to
// mdMaxValue runes. JSON escapes quotes, backslashes and control
// characters; graphicJSON escapes the rest that could mislead or break
// Markdown.
func value(v any) string {
	if s, ok := v.(string); ok {
		v = cut(s, mdMaxValue) // the JSON is cut again; this spares encoding a long string
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a code span shows < and & as they are
	if err := enc.Encode(v); err != nil {
		return "(unprintable)"
	}
	return "`" + graphicJSON(cut(strings.TrimSuffix(b.String(), "\n"), mdMaxValue)) + "`"
}

// cut shortens s to max runes, ending it with "…" when it was longer.
func cut(s string, max int) string {
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// codeList is strings as code spans, separated by commas.
func codeList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}
