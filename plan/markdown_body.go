package plan

import (
	"fmt"
	"strings"
)

// mdOmittedReserve is the room kept for the line that counts what did not
// fit.
const mdOmittedReserve = 256

// mdBody is the part of a Markdown plan that is bounded: tables are
// written whole or up to the last row that fits, then everything after is
// counted, never written in part.
type mdBody struct {
	b       strings.Builder
	budget  int            // bytes left
	full    bool           // a row did not fit: write nothing more
	omitted map[string]int // rows not written, per noun ("wave", "object", "note")
}

func newMDBody(budget int) *mdBody {
	return &mdBody{budget: budget, omitted: map[string]int{}}
}

// table writes heading, header, as many rows as fit and footer; the rows
// that do not fit are counted as nouns, and so are all rows of later
// tables. A table without a row that fits is not written at all.
func (m *mdBody) table(heading, header string, rows []string, footer, noun string) {
	if m.full {
		m.omitted[noun] += len(rows)
		return
	}
	size, n := len(heading)+len(header)+len(footer), 0
	for n < len(rows) && size+len(rows[n]) <= m.budget {
		size += len(rows[n])
		n++
	}
	if n < len(rows) {
		m.full = true
		m.omitted[noun] += len(rows) - n
	}
	if n == 0 {
		return
	}
	m.b.WriteString(heading + header + strings.Join(rows[:n], "") + footer)
	m.budget -= size
}

// folded is a table in a <details> block titled with its row count;
// nothing when there are no rows.
func (m *mdBody) folded(title, header string, rows []string, noun string) {
	if len(rows) == 0 {
		return
	}
	heading := fmt.Sprintf("\n<details><summary>%s (%d)</summary>\n\n", title, len(rows))
	m.table(heading, header, rows, "\n</details>\n", noun)
}

// String is what was written and, when rows did not fit, the line that
// counts them.
func (m *mdBody) String() string {
	if !m.full {
		return m.b.String()
	}
	var parts []string
	for _, noun := range []string{"wave", "object", "note"} {
		if n := m.omitted[noun]; n == 1 {
			parts = append(parts, "1 more "+noun)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d more %ss", n, noun))
		}
	}
	return m.b.String() + fmt.Sprintf("\n**… %s not shown**: this comment is kept under GitHub's size limit; the plan's text output lists everything.\n", strings.Join(parts, " and "))
}
