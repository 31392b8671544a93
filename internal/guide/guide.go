// Package guide reads the runnable parts of a Markdown guide, so a test can
// run a guide's shell blocks in order and the guide cannot drift from the
// tool it describes.
//
// A runnable block is a fenced code block whose info string is exactly
// "sh". Lines that follow it, before the next block, of the form
//
//	<!-- expect: TEXT -->
//
// name text its output (stdout and stderr together) must contain. They are
// HTML comments, so a reader never sees them. Blocks of other languages
// ("console", "text", "go", "toml", ...) are for reading only.
package guide

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Block is one runnable shell block of a guide.
type Block struct {
	Line   int      // line of its opening fence, 1-based
	Script string   // its lines, without the fences
	Expect []string // texts its output must contain, in order of the guide
}

// Parse returns the runnable blocks of a Markdown document, in order. An
// unclosed fence or an expect comment before any block is an error naming
// the line.
func Parse(doc []byte) ([]Block, error) {
	var (
		blocks []Block
		cur    *Block // the open fence, if any
		fence  string
		body   strings.Builder
		lineNo int
	)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "" && trimmed == fence:
			if cur != nil {
				cur.Script = body.String()
				blocks = append(blocks, *cur)
			}
			fence, cur = "", nil
			body.Reset()
		case fence != "":
			if cur != nil {
				body.WriteString(line + "\n")
			}
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
			if strings.TrimPrefix(trimmed, "```") == "sh" {
				cur = &Block{Line: lineNo}
			}
		default:
			text, ok := expectation(trimmed)
			if !ok {
				continue
			}
			if len(blocks) == 0 {
				return nil, fmt.Errorf("line %d: expect comment before any sh block", lineNo)
			}
			blocks[len(blocks)-1].Expect = append(blocks[len(blocks)-1].Expect, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if fence != "" {
		return nil, fmt.Errorf("line %d: code block never closed", lineNo)
	}
	return blocks, nil
}

// expectation parses "<!-- expect: TEXT -->".
func expectation(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "<!-- expect:")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, "-->")
	return strings.TrimSpace(rest), ok
}
