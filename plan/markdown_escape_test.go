package plan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

// hostile is one value built to break a Markdown comment.
var hostile = []struct{ name, value string }{
	{"a pipe ends a table cell", "a|b||c"},
	{"a backslash before a pipe", `a\|b\\|c`},
	{"backticks end a code span", "x`y``z```"},
	{"a script tag", "<script>alert(1)</script>"},
	{"a mention", "@octocat and @org/team"},
	{"a newline ends a table row", "one\ntwo\r\n| --- |\n# heading"},
	{"emphasis, links and images", "*b* _i_ [l](https://example.com) ![i](x.png) ~~s~~"},
	{"an HTML entity and comment", "&lt;b&gt; <!-- c --> <details open>"},
	{"a bidirectional override", "safe\u202eevil"},
	{"spaces at both ends", " padded "},
}

// A hostile string as an object name, a field path, a field's old and new
// value, a conflicting manager and a warning: goldmark (GitHub-flavoured)
// reads one table row of three cells per object, the code spans hold the
// string (quoted, or as JSON), the warning reads as the string, and no
// HTML, link, emphasis or mention comes out of it.
func TestWriteMarkdownEscapesWhatTheReleaseSays(t *testing.T) {
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			p := hostilePlan(tc.value)
			var b bytes.Buffer
			if err := p.WriteMarkdown(&b, plan.MarkdownOptions{Next: approveLine}); err != nil {
				t.Fatal(err)
			}
			src := b.Bytes()
			doc := gfm().Parser().Parse(text.NewReader(src))
			tables := tablesOf(doc)
			// the counts, the wave's objects and the warnings
			if len(tables) != 3 {
				t.Fatalf("%d tables, want 3:\n%s", len(tables), src)
			}
			rows := rowsOf(tables[1])
			if len(rows) != 1 || len(rows[0]) != 3 {
				t.Fatalf("the wave's table has rows %d, cells %v, want one row of 3 cells:\n%s", len(rows), rows, src)
			}
			spans := codeSpans(rows[0][1], src)
			if len(spans) != 1 || unquote(t, spans[0]) != "ConfigMap/shop/"+tc.value {
				t.Errorf("the object cell's code spans = %q, want the object's name", spans)
			}
			fields := codeSpans(rows[0][2], src)
			if len(fields) != 7 {
				t.Fatalf("the fields cell's code spans = %q, want the manager and its field, the field taken back and its manager, the path, the old and the new value", fields)
			}
			got := []string{unquote(t, fields[0]), unquote(t, fields[1]), unquote(t, fields[2]), unquote(t, fields[3]), unquote(t, fields[4]), unjson(t, fields[5]), unjson(t, fields[6])}
			if want := []string{tc.value, tc.value, tc.value, tc.value, tc.value, tc.value, tc.value}; !cmp.Equal(got, want) {
				t.Errorf("the fields cell's code spans read %q, want the manager, its field, the path, the old and the new value %q", got, tc.value)
			}
			if warn := rowsOf(tables[2]); len(warn) != 1 || reads(t, warn[0][1], src) != readable(tc.value) {
				t.Errorf("the warning reads %q, want %q", reads(t, warn[0][1], src), readable(tc.value))
			}
			assertNoMarkup(t, doc, src, p.Summary())
		})
	}
}

// hostilePlan is a plan whose one ConfigMap is named s, conflicts with
// manager s over field s, takes field s back from manager s, changes field
// s from s to s, and warns s.
func hostilePlan(s string) *plan.Plan {
	ref := object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: s}
	return &plan.Plan{Schema: plan.Schema, Hash: reviewHash, Release: plan.Release{Name: "shop"}, Target: plan.Target{Namespace: "shop"},
		Steps: []plan.Step{{Ref: ref, Stage: plan.StageConfig, Action: plan.Update, Warnings: []string{s},
			Conflicts: []plan.Conflict{{Manager: s, Fields: []string{s}}},
			Reclaim:   []plan.Conflict{{Manager: s, Fields: []string{s}}},
			Changes:   []plan.Change{{Path: s, Kind: plan.Changed, From: s, To: s}}}},
		Waves: []plan.Wave{{Stage: plan.StageConfig, Nodes: []int{0}}},
	}
}

func gfm() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM))
}

// assertNoMarkup fails on any raw HTML but the tags WriteMarkdown writes
// itself, any link or emphasis, and any mention outside a code span.
func assertNoMarkup(t *testing.T, doc ast.Node, src []byte, summary string) {
	t.Helper()
	ours := regexp.MustCompile(`^(<br>|</?details>|</?summary>|<details><summary>\d+ changed fields</summary>|<details><summary>[A-Za-z ,]+ \(\d+\)</summary>)$`)
	mention := regexp.MustCompile(`@[A-Za-z0-9]`)
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML:
			if html := rawHTML(n, src); !ours.MatchString(html) {
				t.Errorf("raw HTML %q", html)
			}
		case *ast.HTMLBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				if line := strings.TrimSpace(string(seg.Value(src))); !ours.MatchString(line) {
					t.Errorf("an HTML block line %q", line)
				}
			}
		case *ast.Link, *ast.Image, *ast.AutoLink, *east.Strikethrough:
			t.Errorf("a %s node", n.Kind())
		case *ast.Emphasis:
			if s := plainText(n, src); s != "total" && s != summary && !strings.HasPrefix(s, "This plan") {
				t.Errorf("emphasis on %q", plainText(n, src))
			}
		case *ast.CodeSpan:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if m := mention.Find(n.Value(src)); m != nil {
				t.Errorf("a mention %q in text %q", m, n.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
}

func tablesOf(doc ast.Node) []*east.Table {
	var out []*east.Table
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*east.Table); ok && entering {
			out = append(out, t)
		}
		return ast.WalkContinue, nil
	})
	return out
}

// rowsOf returns the body rows of a table, each as its cells.
func rowsOf(t *east.Table) [][]ast.Node {
	var rows [][]ast.Node
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if _, ok := r.(*east.TableRow); !ok {
			continue
		}
		var cells []ast.Node
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, c)
		}
		rows = append(rows, cells)
	}
	return rows
}

// codeSpans returns the text of each code span under n.
func codeSpans(n ast.Node, src []byte) []string {
	var out []string
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if cs, ok := c.(*ast.CodeSpan); ok && entering {
			out = append(out, plainText(cs, src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// plainText is the text a reader sees of n.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		switch c := c.(type) {
		case *ast.Text:
			if entering {
				b.Write(c.Value(src))
			}
		case *ast.String:
			if entering {
				b.Write(c.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// unquote reads a code span of a name: as it is, or Go-quoted.
func unquote(t *testing.T, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Errorf("code span %q: %v", s, err)
	}
	return u
}

// unjson reads a code span of a value, which is JSON.
func unjson(t *testing.T, s string) string {
	t.Helper()
	var v string
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Errorf("code span %q: %v", s, err)
	}
	return v
}

func rawHTML(n *ast.RawHTML, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// reads is what a reader sees of n: goldmark's HTML of it, without tags,
// entities decoded.
func reads(t *testing.T, n ast.Node, src []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := gfm().Renderer().Render(&b, src, n); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(b.String(), "")))
}

// readable is how prose s reads in a comment: each "@" followed by a word
// joiner (no mention), each rune that is not graphic as \uXXXX, without
// the spaces a table cell trims.
func readable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '@':
			b.WriteString("@\u2060")
		case !unicode.IsGraphic(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}
