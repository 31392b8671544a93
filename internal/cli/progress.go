package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// display renders a run for the command: events is the run's event sink,
// log takes the command's own lines (which server, which composition) so
// they print above a live display instead of through it, and done is
// called once after the run to stop the display.
type display struct {
	events func(progress.Event)
	log    io.Writer
	done   func()
}

// newProgress returns the display of a run. With -o json it writes JSON
// lines to stdout; when stderr is a terminal it draws live bars there
// (progress_live.go); otherwise it prints plain lines on stderr
// (progress_plain.go). People's renderers print how the run ended once;
// the JSON stream carries it as its last event.
func newProgress(cmd *cobra.Command, output string) display {
	stderr := cmd.ErrOrStderr()
	if output == "json" {
		return display{events: jsonLines(cmd.OutOrStdout()), log: stderr, done: func() {}}
	}
	if tty, ok := terminal(stderr); ok {
		l := newLive(tty, liveOptions{Color: os.Getenv("NO_COLOR") == ""})
		return display{events: l.emit, log: l, done: l.close}
	}
	return display{events: newPlain(stderr, nil).emit, log: stderr, done: func() {}}
}

// terminal returns w as a file when it is a terminal.
func terminal(w io.Writer) (*os.File, bool) {
	f, ok := w.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// eventLine is the line both people's renderers print for an event, or ""
// for the kinds each shows its own way: waves, steps that went well,
// waits and the run's end.
func eventLine(e progress.Event) string {
	switch e.Kind {
	case progress.RunStarted:
		return fmt.Sprintf("run %s: plan %s, %s", e.Run, plan.ShortHash(e.Plan), e.Summary)
	case progress.StepFinished:
		if e.Error != "" {
			return fmt.Sprintf("  failed  %s %s: %s", e.Action, e.Ref, e.Error)
		}
	case progress.WaitSkipped:
		return fmt.Sprintf("  no wait %s (%s)", e.Ref, e.Message)
	case progress.Diagnosed:
		return fmt.Sprintf("  %s: %s", e.Ref, e.Message)
	case progress.Settled:
		return fmt.Sprintf("  settled %s: %s", e.Ref, e.Result)
	case progress.Compensating:
		if e.Error != "" {
			return fmt.Sprintf("  undo %s: %s: %s", e.Ref, e.Result, e.Error)
		}
		return fmt.Sprintf("  undo %s: %s", e.Ref, e.Result)
	case progress.Note:
		return "  " + e.Message
	case progress.CheckFinished:
		return checkLine(e)
	case deploy.StageStarted, deploy.StageFinished:
		return stageLine(e)
	}
	return ""
}

// checkLine says how a check went: "  check home page (http): passed in
// 0.2s", or failed with why.
func checkLine(e progress.Event) string {
	took := time.Duration(e.DurationMS) * time.Millisecond
	line := fmt.Sprintf("  check %s (%s): %s in %s", e.Check, e.What, e.Result, took.Round(time.Millisecond))
	if e.Error != "" {
		line += ": " + e.Error
	}
	return line
}

// waveName names a wave by its place and stage: "wave 2/3: apps".
func waveName(e progress.Event) string {
	return fmt.Sprintf("wave %d/%d: %s", e.Wave+1, e.Waves, e.Stage)
}

// endText says how a run ended: "run ID finished: revision N" for a
// finished run, else "run ID stopped", "run ID failed" or
// "run ID compensated". The error is left to the command, which returns it.
func endText(e progress.Event) string {
	if e.Phase == string(release.PhaseFinished) {
		return fmt.Sprintf("run %s finished: revision %d", e.Run, e.Revision)
	}
	return fmt.Sprintf("run %s %s", e.Run, e.Phase)
}

// waitingText says how many objects a wave still waits for and names the
// first few, at most progress.MaxNames whatever the event carries:
// "waiting for 62 of 100 Deployments: d-00039, d-00099, d-00100, … (+59)".
func waitingText(e progress.Event) string {
	s := fmt.Sprintf("waiting for %d of %d %s", e.Pending, e.Total, e.What)
	names := e.Names[:min(len(e.Names), progress.MaxNames)]
	if len(names) == 0 {
		return s
	}
	s += ": " + strings.Join(names, ", ")
	if more := e.Pending - len(names); more > 0 {
		s += fmt.Sprintf(", … (+%d)", more)
	}
	return s
}
