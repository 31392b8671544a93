package plan

import (
	"fmt"
	"io"
	"strings"
)

// MarkdownLimit is the size WriteMarkdown keeps a document under by
// default: 65,536, GitHub's limit on one comment in characters, counted
// here in bytes (never fewer than characters, nor than UTF-16 units).
const MarkdownLimit = 65536

// MarkdownOptions say how WriteMarkdown prints a plan. The zero value is
// valid: no command under the hash, and the document kept under
// MarkdownLimit.
type MarkdownOptions struct {
	// Next is the command a reviewer runs next, printed verbatim in a
	// code block: for a stored plan the apply command that approves its
	// hash; for a diff (no hash) the command that stores a plan. Empty
	// prints no command.
	Next string
	// Limit bounds the document's size in bytes; 0 means MarkdownLimit.
	// Rows that do not fit are counted in one "… N more objects" line;
	// the title, the summary line and the approval are always written.
	Limit int
}

// WriteMarkdown prints the plan as a pull-request review comment in
// GitHub-flavoured Markdown: the counts per action and per wave, what
// blocks it, then each wave's changed objects with their action and
// changed fields (old → new; long lists folded with <details>), unchanged
// objects counted, not listed, then the objects it keeps and does not
// wait for, the warnings, and last its hash with opts.Next. A Secret
// shows only the paths of its keys: the plan holds no value of one, and
// WriteMarkdown prints none of a Secret's even if a plan did. Every name,
// path and value comes from the release and is escaped: it can neither
// break a table nor inject markup or a mention. The document stays under
// opts.Limit without cutting a table.
func (p *Plan) WriteMarkdown(w io.Writer, opts MarkdownOptions) error {
	limit := opts.Limit
	if limit <= 0 {
		limit = MarkdownLimit
	}
	head, tail := p.mdHead(), p.mdTail(opts.Next)
	body := newMDBody(limit - len(head) - len(tail) - mdOmittedReserve)
	p.mdCounts(body)
	p.mdBlocked(body)
	p.mdWaves(body)
	p.mdNotes(body)
	_, err := io.WriteString(w, head+body.String()+tail)
	return err
}

// mdHead is the title, the summary, the namespaces written to and
// whether anything blocks the plan.
func (p *Plan) mdHead() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Piceli plan for release %s\n\n", code(p.Release.Name))
	fmt.Fprintf(&b, "Namespace %s on %s (context %s): **%s**.\n", code(p.Target.Namespace), code(p.Target.Server), code(p.Target.Context), p.Summary())
	if len(p.Namespaces) > 0 {
		fmt.Fprintf(&b, "Writes to namespaces %s.\n", codeList(p.Namespaces))
	}
	if p.Capabilities != nil {
		fmt.Fprintf(&b, "Charts rendered against Kubernetes %s.\n", code(p.Capabilities.KubeVersion))
	}
	if blocked := p.Blocked(); len(blocked) > 0 {
		fmt.Fprintf(&b, "\n> [!CAUTION]\n> **This plan cannot be applied: %d step(s) blocked**, listed below with why.\n", len(blocked))
	}
	return b.String()
}

// mdActions are the actions in the order counts are printed.
var mdActions = []Action{Create, Update, Adopt, Replace, Delete, NoOp}

// mdCounts is the table of steps per wave and action, with only the
// actions the plan has, and a total row; nothing for a plan without steps.
func (p *Plan) mdCounts(body *mdBody) {
	total := p.Counts()
	var cols []Action
	for _, a := range mdActions {
		if total[a] > 0 {
			cols = append(cols, a)
		}
	}
	if len(cols) == 0 {
		return
	}
	header := "| wave | stage |"
	for _, a := range cols {
		header += " " + mdLabel(a) + " |"
	}
	header += "\n| ---: | --- |" + strings.Repeat(" ---: |", len(cols)) + "\n"
	var rows []string
	for n, wv := range p.Waves {
		if n == mdMaxWaveRows {
			rows = append(rows, fmt.Sprintf("| … | %d more waves |%s\n", len(p.Waves)-n, strings.Repeat(" |", len(cols))))
			break
		}
		rows = append(rows, fmt.Sprintf("| %d | %s |%s\n", n+1, code(string(wv.Stage)), countCells(p.waveCounts(wv), cols)))
	}
	body.table("\n", header, rows, fmt.Sprintf("| | **total** |%s\n", countCells(total, cols)), "wave")
}

// mdMaxWaveRows is how many waves the counts table lists; a plan of more
// (a long chain of dependencies) counts the rest in one row, so that its
// objects still fit in a comment.
const mdMaxWaveRows = 30

// mdLabel names an action's column.
func mdLabel(a Action) string {
	if a == NoOp {
		return "unchanged"
	}
	return string(a)
}

func countCells(c map[Action]int, cols []Action) string {
	var b strings.Builder
	for _, a := range cols {
		fmt.Fprintf(&b, " %d |", c[a])
	}
	return b.String()
}

// waveCounts counts a wave's steps per action.
func (p *Plan) waveCounts(wv Wave) map[Action]int {
	c := map[Action]int{}
	for _, i := range wv.Nodes {
		c[p.Steps[i].Action]++
	}
	return c
}

// mdBlocked lists the steps that block the plan, with why.
func (p *Plan) mdBlocked(body *mdBody) {
	var rows []string
	for _, s := range p.Steps {
		if s.Blocked != "" {
			rows = append(rows, fmt.Sprintf("| %s | %s |\n", code(s.Ref.String()), text(s.Blocked)))
		}
	}
	if len(rows) > 0 {
		body.table("\n#### Blocked\n\n", "| object | why |\n| --- | --- |\n", rows, "", "note")
	}
}

// mdTail is the approval: the hash and the command that applies it, or
// why there is nothing to approve.
func (p *Plan) mdTail(next string) string {
	var b strings.Builder
	b.WriteString("\n#### Approve\n\n")
	switch {
	case len(p.Blocked()) > 0:
		b.WriteString("Nothing to approve: a blocked plan is not stored.\n")
		return b.String()
	case p.Hash == "":
		b.WriteString("Nothing to approve: this diff stored no plan.")
		if next != "" {
			b.WriteString(" To store one and print its hash:\n")
		}
	default:
		fmt.Fprintf(&b, "Plan %s. To apply exactly this plan:\n", code(p.Hash))
	}
	if next != "" {
		b.WriteString("\n" + fenced(next))
	}
	return b.String()
}

// mdWaves lists each wave's objects that are not quiet, in a table per
// wave, and counts the quiet ones. A wave with more than mdFoldRows
// objects that have no field to show (creates, deletes) lists the others
// first and folds those in <details>, so no long list hides a change.
func (p *Plan) mdWaves(body *mdBody) {
	for n, wv := range p.Waves {
		all, detailed, bare, quietCount := p.waveRows(wv)
		if len(all) == 0 {
			continue
		}
		heading := fmt.Sprintf("\n#### Wave %d: %s\n\n", n+1, code(string(wv.Stage)))
		footer := ""
		if quietCount > 0 {
			footer = fmt.Sprintf("\nand %d unchanged.\n", quietCount)
		}
		if len(bare) <= mdFoldRows {
			body.table(heading, mdStepHeader, all, footer, "object")
			continue
		}
		if len(detailed) > 0 {
			body.table(heading, mdStepHeader, detailed, "", "object")
			heading = ""
		}
		heading += fmt.Sprintf("\n<details><summary>%d objects without changed fields</summary>\n\n", len(bare))
		body.table(heading, mdStepHeader, bare, "\n</details>\n"+footer, "object")
	}
}

// mdStepHeader heads a wave's table.
const mdStepHeader = "| action | object | changed fields |\n| --- | --- | --- |\n"

// mdFoldRows is how many objects without changed fields a wave lists
// before it folds them.
const mdFoldRows = 20

// waveRows returns a wave's rows: all that are not quiet, in step order,
// and split into those with something to show (changed fields, conflicts,
// a block) and the bare rest; and how many are quiet.
func (p *Plan) waveRows(wv Wave) (all, detailed, bare []string, quietCount int) {
	for _, i := range wv.Nodes {
		s := p.Steps[i]
		switch row := stepRow(s); {
		case quiet(s):
			quietCount++
		case len(s.Changes) > 0 || len(s.Conflicts) > 0 || s.Blocked != "":
			all, detailed = append(all, row), append(detailed, row)
		default:
			all, bare = append(all, row), append(bare, row)
		}
	}
	return all, detailed, bare, quietCount
}

// mdNotes lists the objects the plan keeps, those apply does not wait
// for, and the warnings, each folded.
func (p *Plan) mdNotes(body *mdBody) {
	var kept, notWaited, warnings []string
	for _, k := range p.Kept {
		kept = append(kept, fmt.Sprintf("| %s | %s |\n", code(k.Ref.String()), text(k.Explain())))
	}
	for _, s := range p.Steps {
		if s.NoWait != "" {
			notWaited = append(notWaited, fmt.Sprintf("| %s | %s |\n", code(s.Ref.String()), text(s.NoWait.Explain())))
		}
		for _, w := range s.Warnings {
			warnings = append(warnings, fmt.Sprintf("| %s | %s |\n", code(s.Ref.String()), text(w)))
		}
	}
	body.folded("Kept, not deleted", "| object | why |\n| --- | --- |\n", kept, "object")
	body.folded("Applied without waiting for readiness", "| object | why |\n| --- | --- |\n", notWaited, "note")
	body.folded("Warnings", "| object | warning |\n| --- | --- |\n", warnings, "note")
}
