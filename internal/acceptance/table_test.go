package acceptance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// row is one scenario's line of the table.
type row struct {
	name, fault, expected string
	fast                  bool
	result                string // "pass" or "FAIL"
	seconds               float64
}

// done records how the scenario ended.
func (r *row) done(t *testing.T, d time.Duration) {
	r.result, r.seconds = "pass", d.Seconds()
	if t.Failed() {
		r.result = "FAIL"
	}
}

// table collects the rows of one TestAcceptance run.
type table struct {
	mu    sync.Mutex
	full  bool
	start time.Time
	rows  []*row
}

func (tb *table) add(s scenario) *row {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.start.IsZero() {
		tb.start = time.Now()
	}
	r := &row{name: s.name, fault: s.fault, expected: s.expected, fast: s.fast}
	tb.rows = append(tb.rows, r)
	return r
}

// finish prints the table and, on a full run with UpdateEnv=1, writes
// docs/acceptance.md.
func (tb *table) finish(t *testing.T) {
	text := tb.markdown(time.Since(tb.start))
	fmt.Print("\n" + text)
	if os.Getenv(UpdateEnv) != "1" {
		return
	}
	if !tb.full {
		t.Errorf("%s=1 rewrites docs/acceptance.md only on a full run (%s=full, as `make test-acceptance` sets)", UpdateEnv, ModeEnv)
		return
	}
	for _, r := range tb.rows {
		if r.result == "" {
			t.Errorf("%s=1 rewrites docs/acceptance.md only when every scenario ran; %q did not", UpdateEnv, r.name)
			return
		}
	}
	doc := filepath.Join(repoRoot(), "docs", "acceptance.md")
	old, err := os.ReadFile(doc)
	if err != nil {
		t.Errorf("read %s: %v", doc, err)
		return
	}
	if err := os.WriteFile(doc, []byte(faultPage(string(old), text)), 0o644); err != nil {
		t.Errorf("write %s: %v", doc, err)
	}
}

// faultPage is docs/acceptance.md with its introduction and fault table
// rewritten; the sections other tests write (the security table) are kept.
func faultPage(old, text string) string {
	var rest string
	if i := strings.Index(old, beginMarker(securityMarker)); i >= 0 {
		rest = "\n" + old[i:]
	}
	return docIntro + text + rest
}

// markdown renders the rows as a table with a summary line.
func (tb *table) markdown(wall time.Duration) string {
	var b strings.Builder
	var rows []*row
	for _, r := range tb.rows {
		if r.result != "" { // not run: left out by -run
			rows = append(rows, r)
		}
	}
	passed, fast := 0, 0
	for _, r := range rows {
		if r.result == "pass" {
			passed++
		}
		if r.fast {
			fast++
		}
	}
	half := "full suite"
	if !tb.full {
		half = "fast half"
	}
	fmt.Fprintf(&b, "%s: %d of %d scenarios passed (%d in the fast half) in %.0fs\n\n", half, passed, len(rows), fast, wall.Seconds())
	b.WriteString("| scenario | fault | expected | result | seconds |\n| --- | --- | --- | --- | ---: |\n")
	for _, r := range rows {
		name := r.name
		if r.fast {
			name += " (fast)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f |\n", cell(name), cell(r.fault), cell(r.expected), r.result, r.seconds)
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
