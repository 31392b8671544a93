package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// cell names one figure: an operation of a release by one tool.
type cell struct {
	Row  row
	Op   string
	Tool string
}

// results collects every sample of a run, and notes on what they showed.
type results struct {
	cfg     config
	mu      sync.Mutex
	samples map[cell][]sample
	notes   map[cell][]string
	verbose func(row, string, string, sample) // when set, told of each sample
}

func newResults(cfg config) *results {
	return &results{cfg: cfg, samples: map[cell][]sample{}, notes: map[cell][]string{}}
}

func (r *results) add(rw row, op, tool string, s sample) {
	if r.verbose != nil {
		r.verbose(rw, op, tool, s)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := cell{rw, op, tool}
	r.samples[k] = append(r.samples[k], s)
}

func (r *results) note(rw row, op, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := cell{rw, op, toolKubectl}
	if !slices.Contains(r.notes[k], text) {
		r.notes[k] = append(r.notes[k], text)
	}
}

// expected lists every figure the configuration calls for.
func (r *results) expected() []cell {
	var out []cell
	for _, rw := range r.cfg.rows() {
		if !r.cfg.PeersOnly {
			out = append(out, cell{rw, opRender, toolPiceli})
		}
		if !r.cfg.onCluster(rw) {
			continue
		}
		for _, op := range []string{opPlanEmpty, opApplyFresh, opPlanNoop, opApplyNoop} {
			out = append(out, cell{rw, op, toolPiceli})
		}
		if !r.cfg.PeersOnly {
			out = append(out, cell{rw, opApplyNoSync, toolPiceli})
		}
		for _, op := range []string{opApplyFresh, opPlanNoop, opApplyNoop} {
			out = append(out, cell{rw, op, toolKubectl})
		}
		if r.cfg.peerRow(rw) {
			for _, op := range []string{opApplyFresh, opApplyNoop} {
				out = append(out, cell{rw, op, toolFloor}, cell{rw, op, toolHelm})
			}
		}
	}
	return out
}

// missing names every expected figure without its full set of samples
// (or with a sample lacking a measurement it should have).
func (r *results) missing() []string {
	var out []string
	for _, k := range r.expected() {
		ss := r.samples[k]
		switch {
		case len(ss) < r.cfg.Runs:
			out = append(out, fmt.Sprintf("%s / %s / %s: %d of %d runs", k.Row, k.Op, k.Tool, len(ss), r.cfg.Runs))
		case k.Op != opRender && slices.ContainsFunc(ss, func(s sample) bool { return s.Requests < 0 }):
			out = append(out, fmt.Sprintf("%s / %s / %s: API request counts missing", k.Row, k.Op, k.Tool))
		case (k.Tool == toolPiceli || k.Tool == toolFloor) && slices.ContainsFunc(ss, func(s sample) bool { return s.RSS <= 0 }):
			out = append(out, fmt.Sprintf("%s / %s / %s: peak RSS missing", k.Row, k.Op, k.Tool))
		}
	}
	return out
}

// figure is the summary of one cell.
type figure struct {
	Wall     time.Duration // median
	Min, Max time.Duration
	CPU      time.Duration // median CPU time of the process and those it ran
	RSS      int64         // the largest of the runs
	PerObj   float64       // median API requests per object
	Check    float64       // median seconds before the run (Piceli apply)
	Ready    float64       // median seconds waiting for readiness (Piceli apply)
	Journal  float64       // median seconds of journal commits (Piceli apply)
	Commits  float64       // median journal commits (Piceli apply)
	ok       bool
}

func (r *results) figure(k cell) figure {
	ss := r.samples[k]
	if len(ss) == 0 {
		return figure{}
	}
	walls := make([]time.Duration, len(ss))
	cpus := make([]time.Duration, len(ss))
	var per, check, ready, journal, commits []float64
	f := figure{ok: true}
	for i, s := range ss {
		walls[i], cpus[i] = s.Wall, s.CPU
		f.RSS = max(f.RSS, s.RSS)
		per = append(per, s.Requests/float64(k.Row.N))
		check = append(check, s.Result.Check)
		ready = append(ready, s.Result.Readiness)
		journal = append(journal, s.Result.Journal)
		commits = append(commits, float64(s.Result.Commits))
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	f.CPU = median(cpus)
	f.Wall, f.Min, f.Max = median(walls), walls[0], walls[len(walls)-1]
	f.PerObj, f.Check, f.Ready = medianF(per), medianF(check), medianF(ready)
	f.Journal, f.Commits = medianF(journal), medianF(commits)
	return f
}

// median of sorted durations; the mean of the middle two for an even count.
func median(d []time.Duration) time.Duration {
	n := len(d)
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

func medianF(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// kubectlOp is what kubectl ran for the figure compared with op.
var kubectlOp = map[string]string{
	opApplyFresh: "`apply --server-side`",
	opPlanNoop:   "`diff --server-side`",
	opApplyNoop:  "second `apply --server-side`",
}

// table renders every figure as Markdown rows, in configuration order.
func (r *results) table() string {
	var b strings.Builder
	b.WriteString("| release | operation | Piceli | kubectl | ratio | Piceli peak RSS | API requests per object, Piceli / kubectl |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, rw := range r.cfg.rows() {
		ops := []string{opRender}
		if r.cfg.onCluster(rw) {
			ops = append(ops, opPlanEmpty, opApplyFresh, opApplyNoSync, opPlanNoop, opApplyNoop)
		}
		if r.cfg.PeersOnly { // neither render nor the build without fsync is measured
			ops = slices.DeleteFunc(ops, func(op string) bool { return op == opRender || op == opApplyNoSync })
		}
		for _, op := range ops {
			b.WriteString(r.line(rw, op))
		}
	}
	return b.String()
}

func (r *results) line(rw row, op string) string {
	p := r.figure(cell{rw, op, toolPiceli})
	k := r.figure(cell{rw, op, toolKubectl})
	name := op
	switch {
	case op == opApplyFresh:
		name += fmt.Sprintf(" (of which approval check %.2f s, readiness %.2f s; %.0f journal commits took %.2f s)", p.Check, p.Ready, p.Commits, p.Journal)
	case op == opApplyNoop:
		name += fmt.Sprintf(" (of which approval check %.2f s)", p.Check)
	case op == opApplyNoSync:
		if f := r.figure(cell{rw, opApplyFresh, toolPiceli}); f.ok && p.ok {
			name += fmt.Sprintf(" (%+.0f%% against the fresh apply)", -100*journalCost(f.Wall, p.Wall))
		}
	}
	kubectl, ratio, req := "", "", ""
	if p.ok && op != opRender {
		req = fmt.Sprintf("%.2f", p.PerObj)
	}
	if k.ok {
		kubectl = seconds(k) + " " + kubectlOp[op]
		if synthDeployments(rw) > 0 && op == opApplyFresh {
			kubectl += " + `wait`"
		}
		ratio = fmt.Sprintf("%.2f", p.Wall.Seconds()/k.Wall.Seconds())
		req += fmt.Sprintf(" / %.2f", k.PerObj)
		for _, n := range r.notes[cell{rw, op, toolKubectl}] {
			kubectl += " (" + n + ")"
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", rw, name, seconds(p), kubectl, ratio, megabytes(p.RSS), req)
}

// journalCost is the share of a fresh apply's time the journal's fsyncs
// take: against the same apply by a build that does not fsync.
func journalCost(withSync, without time.Duration) float64 {
	return (withSync - without).Seconds() / withSync.Seconds()
}

func seconds(f figure) string {
	if !f.ok {
		return ""
	}
	return fmt.Sprintf("%.2f s (%.2f–%.2f)", f.Wall.Seconds(), f.Min.Seconds(), f.Max.Seconds())
}

func megabytes(b int64) string {
	if b <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}
