package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/bench/synth"
)

// fullResults holds every figure cfg asks for, each run taking wall.
func fullResults(cfg config, wall time.Duration) *results {
	r := newResults(cfg)
	for _, k := range r.expected() {
		for range cfg.Runs {
			r.add(k.Row, k.Op, k.Tool, sample{Wall: wall, RSS: 50e6, Requests: float64(k.Row.N)})
		}
	}
	return r
}

func smallConfig(t *testing.T) config {
	return config{Sizes: []int{100}, Mixes: []synth.Mix{synth.ConfigMaps}, Runs: 3, GoSizes: []int{100}, PeerSizes: []int{100}, Out: filepath.Join(t.TempDir(), "performance.md")}
}

func TestAFigureMissingFailsTheRunAndWritesNothing(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(r *results)
		want  string
	}{
		{name: "the kubectl comparison did not run", want: "configmaps 100 yaml / fresh apply / kubectl: 0 of 3 runs",
			spoil: func(r *results) {
				delete(r.samples, cell{row{synth.ConfigMaps, 100, formatYAML}, opApplyFresh, toolKubectl})
			}},
		{name: "a run short", want: "no-op plan / piceli: 2 of 3 runs",
			spoil: func(r *results) {
				k := cell{row{synth.ConfigMaps, 100, formatGo}, opPlanNoop, toolPiceli}
				r.samples[k] = r.samples[k][:2]
			}},
		{name: "requests not counted", want: "API request counts missing",
			spoil: func(r *results) {
				k := cell{row{synth.ConfigMaps, 100, formatYAML}, opApplyNoop, toolPiceli}
				r.samples[k][1].Requests = -1
			}},
		{name: "no peak RSS", want: "peak RSS missing",
			spoil: func(r *results) {
				r.samples[cell{row{synth.ConfigMaps, 100, formatYAML}, opRender, toolPiceli}][0].RSS = 0
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig(t)
			b := &bench{cfg: cfg, res: fullResults(cfg, time.Second)}
			tt.spoil(b.res)
			var out strings.Builder
			err := b.write(t.Context(), &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("write() = %v, want an error naming %q", err, tt.want)
			}
			if _, err := os.Stat(cfg.Out); !os.IsNotExist(err) {
				t.Errorf("write() with a figure missing left %s (stat: %v), want it not written", cfg.Out, err)
			}
		})
	}
}

func TestTheTableShowsEveryFigureWithItsRatio(t *testing.T) {
	cfg := smallConfig(t)
	r := fullResults(cfg, 2*time.Second)
	if m := r.missing(); len(m) != 0 {
		t.Fatalf("missing() of full results = %v", m)
	}
	table := r.table()
	for _, want := range []string{
		"| configmaps 100 yaml | render | 2.00 s (2.00–2.00) |",
		"| configmaps 100 go | no-op plan | 2.00 s (2.00–2.00) | 2.00 s (2.00–2.00) `diff --server-side` | 1.00 | 50 MB | 1.00 / 1.00 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table() lacks %q:\n%s", want, table)
		}
	}
}

func TestMedians(t *testing.T) {
	if got := median([]time.Duration{1, 2, 9}); got != 2 {
		t.Errorf("median(1, 2, 9) = %v, want 2", got)
	}
	if got := medianF([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("medianF(4, 1, 3, 2) = %v, want 2.5", got)
	}
}
