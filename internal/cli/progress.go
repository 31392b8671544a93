package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

// newProgress returns the renderer of a run's events, plain lines for
// people on stderr or JSON lines on stdout with -o json, and a function to
// call once after the run, which flushes the display.
func newProgress(cmd *cobra.Command, output string) (func(release.Event), func()) {
	if output == "json" {
		return jsonLines(cmd.OutOrStdout()), func() {}
	}
	return (&plainLines{w: cmd.ErrOrStderr()}).emit, func() {}
}

// jsonLines writes one JSON object per event ("schema": "piceli.progress/v1").
func jsonLines(w io.Writer) func(release.Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(e release.Event) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(struct {
			Schema string `json:"schema"`
			release.Event
		}{"piceli.progress/v1", e})
	}
}

// plainLines prints one line per event. Waiting lines are repeated at most
// every 5 seconds.
type plainLines struct {
	mu     sync.Mutex
	w      io.Writer
	lastWt time.Time
}

func (p *plainLines) emit(e release.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line := p.line(e); line != "" {
		fmt.Fprintln(p.w, line)
	}
}

func (p *plainLines) line(e release.Event) string {
	switch e.Kind {
	case release.RunStarted:
		return fmt.Sprintf("run %s: plan %s, %s", e.Run, release.ShortHash(e.Plan), e.Summary)
	case release.WaveStarted:
		return fmt.Sprintf("wave %d/%d: %s (%d objects)", e.Wave+1, e.Waves, e.Stage, e.Objects)
	case release.StepFinished:
		if e.Error != "" {
			return fmt.Sprintf("  failed  %s %s: %s", e.Action, e.Ref, e.Error)
		}
		return fmt.Sprintf("  done    %s %s", e.Action, e.Ref)
	case release.Waiting:
		if time.Since(p.lastWt) < 5*time.Second {
			return ""
		}
		p.lastWt = time.Now()
		return "  " + waitingText(e)
	case release.Settled:
		return fmt.Sprintf("  settled %s: %s", e.Ref, e.Result)
	case release.Compensating:
		return fmt.Sprintf("  undo %s: %s", e.Ref, e.Result)
	case release.Note:
		return "  " + e.Message
	case release.RunFinished:
		if e.Revision > 0 {
			return fmt.Sprintf("run %s finished: revision %d", e.Run, e.Revision)
		}
		return fmt.Sprintf("run %s %s", e.Run, e.Status)
	}
	return ""
}

// waitingText says how many objects a wave still waits for and names the
// first few: "waiting for 62 of 100 Deployments: d-00039, d-00099, … (+59)".
func waitingText(e release.Event) string {
	s := fmt.Sprintf("waiting for %d of %d %s", e.Pending, e.Total, e.What)
	if len(e.Names) == 0 {
		return s
	}
	s += ": " + strings.Join(e.Names, ", ")
	if more := e.Pending - len(e.Names); more > 0 {
		s += fmt.Sprintf(", … (+%d)", more)
	}
	return s
}
