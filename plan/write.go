package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteOptions say how Write prints a plan. The zero value is valid.
type WriteOptions struct {
	Color bool // ANSI colors, for a terminal
	// ShowUnchanged lists every unchanged step; without it each wave counts
	// them in one line, so a one-field change in a large release reads as
	// one step, not one line per object.
	ShowUnchanged bool
}

// symbols mark each action in text output.
var symbols = map[Action]string{Create: "+", Update: "~", NoOp: "=", Adopt: "&", Replace: "-/+", Delete: "-"}

// colors are ANSI SGR codes per action; blocked steps are red.
var colors = map[Action]string{Create: "32", Update: "33", NoOp: "2", Adopt: "35", Replace: "31", Delete: "31"}

// Write prints the plan for people: a summary line and the namespaces it
// writes to, then each wave with its steps and their changed fields, then
// the objects apply does not wait for and why (unchanged steps are
// counted per wave, not listed, unless opts.ShowUnchanged), the undeclared objects it
// keeps and why, the warnings and what blocks the plan. Secret values
// never appear: the plan holds none. It does not print the hash.
func (p *Plan) Write(w io.Writer, opts WriteOptions) {
	fmt.Fprintf(w, "release %s%s in namespace %s: %s\n", p.Release.Name, p.Environment.label(), p.Target.Namespace, p.Summary())
	if len(p.Namespaces) > 0 {
		fmt.Fprintf(w, "writes to namespaces: %s\n", strings.Join(p.Namespaces, ", "))
	}
	if p.Capabilities != nil {
		fmt.Fprintf(w, "charts rendered against Kubernetes %s and the API versions it serves\n", p.Capabilities.KubeVersion)
	}
	for n, wv := range p.Waves {
		fmt.Fprintf(w, "\nwave %d: %s\n", n+1, wv.Stage)
		p.writeWave(w, wv, opts)
	}
	writeLines(w, fmt.Sprintf("applied without waiting for readiness (%d):", len(p.NotWaited())), p.NotWaited())
	if len(p.Kept) > 0 {
		fmt.Fprintf(w, "\nkept, not deleted (%d):\n", len(p.Kept))
		for _, k := range p.Kept {
			fmt.Fprintf(w, "  %s %s: %s\n", paint(opts, "2", "="), k.Ref, k.Explain())
		}
	}
	ws := p.Warnings()
	writeLines(w, paint(opts, "33", fmt.Sprintf("warnings (%d):", len(ws))), ws)
	b := p.Blocked()
	writeLines(w, paint(opts, "31", fmt.Sprintf("this plan cannot be applied (%d blocked):", len(b))), b)
}

// writeLines prints a titled, indented list after a blank line; nothing
// when lines is empty.
func writeLines(w io.Writer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", title)
	for _, line := range lines {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// Summary counts the plan's steps per action, e.g. "3 to create, 1 to
// update, 5 unchanged"; "nothing declared" for a plan without steps.
func (p *Plan) Summary() string {
	c := p.Counts()
	parts := []string{}
	add := func(a Action, label string) {
		if c[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[a], label))
		}
	}
	add(Create, "to create")
	add(Update, "to update")
	add(Adopt, "to adopt")
	add(Replace, "to replace")
	add(Delete, "to delete")
	add(NoOp, "unchanged")
	if len(parts) == 0 {
		return "nothing declared"
	}
	return strings.Join(parts, ", ")
}

// writeWave prints a wave's steps; unchanged ones only as a count, after
// the rest, unless opts.ShowUnchanged.
func (p *Plan) writeWave(w io.Writer, wv Wave, opts WriteOptions) {
	unchanged := 0
	for _, i := range wv.Nodes {
		if s := p.Steps[i]; !opts.ShowUnchanged && quiet(s) {
			unchanged++
			continue
		}
		writeStep(w, p.Steps[i], opts)
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "  %s %d unchanged\n", paint(opts, colors[NoOp], fmt.Sprintf("%-3s", symbols[NoOp])), unchanged)
	}
}

// quiet reports whether a step says nothing but "unchanged": a no-op with
// no conflict, change or block to show.
func quiet(s Step) bool {
	return s.Action == NoOp && s.Blocked == "" && len(s.Conflicts) == 0 && len(s.Changes) == 0
}

func writeStep(w io.Writer, s Step, opts WriteOptions) {
	color := colors[s.Action]
	if s.Blocked != "" {
		color = "31"
	}
	fmt.Fprintf(w, "  %s %s %s\n", paint(opts, color, fmt.Sprintf("%-3s", symbols[s.Action])), s.Ref, paint(opts, "2", "("+string(s.Action)+")"))
	for _, c := range s.Conflicts {
		fmt.Fprintf(w, "      %s manager %q owns %s\n", paint(opts, "31", "conflict:"), c.Manager, strings.Join(c.Fields, ", "))
	}
	for _, c := range s.Reclaim {
		fmt.Fprintf(w, "      %s %s from manager %q, which edited them\n", paint(opts, "33", "takes back:"), strings.Join(c.Fields, ", "), c.Manager)
	}
	for _, c := range s.Changes {
		fmt.Fprintf(w, "      %s\n", changeLine(c, opts))
	}
}

func changeLine(c Change, opts WriteOptions) string {
	switch {
	case c.Hidden:
		return fmt.Sprintf("%s: %s (value hidden)", c.Path, c.Kind)
	case c.Kind == Added:
		return paint(opts, "32", fmt.Sprintf("%s: + %s", c.Path, short(c.To)))
	case c.Kind == Removed:
		return paint(opts, "31", fmt.Sprintf("%s: - %s", c.Path, short(c.From)))
	case c.From == nil && c.To == nil:
		return fmt.Sprintf("%s: changed", c.Path)
	}
	return fmt.Sprintf("%s: %s → %s", c.Path, paint(opts, "31", short(c.From)), paint(opts, "32", short(c.To)))
}

// short renders a value as compact JSON, cut to 80 characters.
func short(v any) string {
	data, _ := json.Marshal(v)
	s := string(data)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func paint(opts WriteOptions, code, s string) string {
	if !opts.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
