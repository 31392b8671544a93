package bench

import (
	"fmt"
	"strings"

	"github.com/pynenc/piceli/internal/bench/synth"
)

func synthDeployments(r row) int { return synth.Deployments(r.Mix, r.N) }

// verdict is one of issue 19's acceptance targets, judged on this run.
type verdict struct {
	What  string
	Value string
	Met   bool
	done  bool // the figures it needs were measured
}

// acceptance judges the targets of issue 19 against this run's medians.
func (r *results) acceptance() []verdict {
	cm1000 := row{Mix: synth.ConfigMaps, N: 1000, Format: formatYAML}
	mix1000 := row{Mix: synth.Mixed, N: 1000, Format: formatYAML}
	var out []verdict
	ratio := func(what string, rw row, op string, limit float64) {
		p, k := r.figure(cell{rw, op, toolPiceli}), r.figure(cell{rw, op, toolKubectl})
		v := verdict{What: what}
		if p.ok && k.ok {
			x := p.Wall.Seconds() / k.Wall.Seconds()
			v.done, v.Met = true, x <= limit
			v.Value = fmt.Sprintf("%.2f (%.2f s against %.2f s)", x, p.Wall.Seconds(), k.Wall.Seconds())
		}
		out = append(out, v)
	}
	ratio("1. fresh apply of 1,000 ConfigMaps, journal included: at most 0.5 of kubectl's", cm1000, opApplyFresh, 0.5)
	ratio("2. no-op apply of 1,000 ConfigMaps: at most 0.2 of kubectl's second apply", cm1000, opApplyNoop, 0.2)
	ratio("3. no-op plan of 1,000 ConfigMaps: at most 0.3 of `kubectl diff --server-side`", cm1000, opPlanNoop, 0.3)
	ratio("4. mixed 1,000 objects with the Deployments' readiness: at most 1.0 of kubectl apply + wait", mix1000, opApplyFresh, 1.0)
	out = append(out,
		r.limit("5a. render of 5,000 objects from YAML under 1 s", formatYAML, []string{opRender}, func(f figure) (float64, string) { return f.Wall.Seconds(), "s" }, 1),
		r.limit("5b. render of 5,000 objects from a Go composition, warm cache, under 2 s", formatGo, []string{opRender}, func(f figure) (float64, string) { return f.Wall.Seconds(), "s" }, 2),
		r.limit("5c. peak RSS of the 5,000-object plans and applies under 300 MB", formatYAML, []string{opPlanEmpty, opApplyFresh, opPlanNoop, opApplyNoop}, func(f figure) (float64, string) { return float64(f.RSS) / 1e6, "MB" }, 300),
		r.journal(cm1000))
	return out
}

// limit judges the worst figure of ops over the 5,000-object releases of
// format against a bound.
func (r *results) limit(what, format string, ops []string, value func(figure) (float64, string), bound float64) verdict {
	v := verdict{What: what, Met: true}
	var parts []string
	for _, m := range r.cfg.Mixes {
		for _, op := range ops {
			f := r.figure(cell{row{Mix: m, N: 5000, Format: format}, op, toolPiceli})
			if !f.ok {
				continue
			}
			x, unit := value(f)
			v.done, v.Met = true, v.Met && x < bound
			parts = append(parts, fmt.Sprintf("%s %s %.2f %s", m, op, x, unit))
		}
	}
	v.Met = v.Met && v.done
	v.Value = strings.Join(parts, "; ")
	return v
}

// journal judges the journal's cost for rw by the time its commits took
// during the fresh apply: they run one at a time, so that time bounds what
// the journal can add to the run, and it is measured inside the run, free
// of the noise between two runs. The apply by the build without fsync is
// shown beside it.
func (r *results) journal(rw row) verdict {
	v := verdict{What: "6. the journal costs at most 10% of a fresh apply of 1,000 ConfigMaps"}
	f, n := r.figure(cell{rw, opApplyFresh, toolPiceli}), r.figure(cell{rw, opApplyNoSync, toolPiceli})
	if f.ok && n.ok {
		share := f.Journal / f.Wall.Seconds()
		v.done, v.Met = true, share <= 0.10
		v.Value = fmt.Sprintf("%.1f%%: its %.0f commits took %.2f s of %.2f s (an upper bound); the build without fsync took %.2f s (%+.0f%%, the runs' own spread being %.2f–%.2f s)",
			100*share, f.Commits, f.Journal, f.Wall.Seconds(), n.Wall.Seconds(), -100*journalCost(f.Wall, n.Wall), f.Min.Seconds(), f.Max.Seconds())
	}
	return v
}

func (v verdict) status() string {
	switch {
	case !v.done:
		return "not measured in this run"
	case v.Met:
		return "met"
	}
	return "**not met**"
}
