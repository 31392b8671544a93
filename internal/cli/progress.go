package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/plan"
)

// newProgress returns the engine's progress printer: plain lines for
// people on stderr, or JSON lines on stdout with -o json.
func newProgress(cmd *cobra.Command, output string) apply.Progress {
	if output == "json" {
		return &jsonProgress{w: cmd.OutOrStdout()}
	}
	return &textProgress{w: cmd.ErrOrStderr()}
}

// textProgress prints one line per event. Waiting lines are repeated at
// most every 5 seconds.
type textProgress struct {
	mu     sync.Mutex
	w      io.Writer
	waves  int
	lastWt time.Time
}

func (p *textProgress) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *textProgress) RunStarted(run string, pl *plan.Plan) {
	p.waves = len(pl.Waves)
	p.line("run %s: plan %s, %s", run, plan.ShortHash(pl.Hash), plan.Summary(pl))
}

func (p *textProgress) WaveStarted(n int, w graph.Wave) {
	p.line("wave %d/%d: %s (%d objects)", n+1, p.waves, w.Stage, len(w.Nodes))
}

func (p *textProgress) StepFinished(s plan.Step, err error) {
	if err != nil {
		p.line("  failed  %s %s: %v", s.Action, s.Ref, err)
		return
	}
	p.line("  done    %s %s", s.Action, s.Ref)
}

func (p *textProgress) Waiting(n int, pending []string) {
	p.mu.Lock()
	due := time.Since(p.lastWt) > 5*time.Second
	if due {
		p.lastWt = time.Now()
	}
	p.mu.Unlock()
	if due && len(pending) > 0 {
		p.line("  waiting for readiness: %s", strings.Join(pending, ", "))
	}
}

func (p *textProgress) Note(msg string) { p.line("  %s", msg) }

func (p *textProgress) RunEnded(run, status string, err error) {
	p.line("run %s %s", run, status)
}

// jsonProgress writes one JSON object per event ("schema":
// "piceli.progress/v1").
type jsonProgress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *jsonProgress) emit(event string, fields map[string]any) {
	fields["schema"], fields["event"] = "piceli.progress/v1", event
	p.mu.Lock()
	defer p.mu.Unlock()
	json.NewEncoder(p.w).Encode(fields)
}

func (p *jsonProgress) RunStarted(run string, pl *plan.Plan) {
	p.emit("run-started", map[string]any{"run": run, "plan": pl.Hash})
}

func (p *jsonProgress) WaveStarted(n int, w graph.Wave) {
	p.emit("wave-started", map[string]any{"wave": n, "stage": w.Stage, "objects": len(w.Nodes)})
}

func (p *jsonProgress) StepFinished(s plan.Step, err error) {
	f := map[string]any{"ref": s.Ref.String(), "action": s.Action}
	if err != nil {
		f["error"] = err.Error()
	}
	p.emit("step-finished", f)
}

func (p *jsonProgress) Waiting(n int, pending []string) {
	p.emit("waiting", map[string]any{"wave": n, "pending": pending})
}

func (p *jsonProgress) Note(msg string) { p.emit("note", map[string]any{"message": msg}) }

func (p *jsonProgress) RunEnded(run, status string, err error) {
	f := map[string]any{"run": run, "status": status}
	if err != nil {
		f["error"] = err.Error()
	}
	p.emit("run-ended", f)
}
