package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

const (
	liveRefresh  = 120 * time.Millisecond // how often the bars and the spinner redraw
	liveBarWidth = 40
)

// liveOptions configure a live display. The zero value redraws every
// liveRefresh, without colour.
type liveOptions struct {
	Color bool // paint failures and the run's end; off under NO_COLOR

	// Refresh, when set, redraws on each receive instead of on a timer, so
	// a test decides when a frame is drawn. The last frame is drawn on
	// close either way.
	Refresh <-chan any
}

// liveDisplay draws a run on a terminal with mpb: a bar per wave (its
// stage, done/total steps), a spinner at the bottom saying what the run is
// doing or waiting for, and, above the bars, lines for the run's start,
// failures, settled steps, undos and notes. Events after run-finished are
// dropped. close stops the display and prints how the run ended, once,
// below the last frame.
type liveDisplay struct {
	mu     sync.Mutex
	tty    io.Writer
	p      *mpb.Progress
	status *mpb.Bar
	doing  atomic.Pointer[string] // the spinner's text; read by mpb's goroutines
	waves  map[int]*waveBar
	color  bool
	end    string // how the run ended, printed by close
	ended  bool
	closed bool
}

// Write prints the command's own lines above the bars while the display
// runs, and straight to the terminal after it.
func (l *liveDisplay) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.tty.Write(b)
	}
	return l.p.Write(b)
}

// waveBar is one wave's bar. Its total is set apart from mpb's so that
// written steps never complete it: only wave-ready does.
type waveBar struct {
	name   string // "wave 2/3: apps"; wave-ready events carry no stage
	bar    *mpb.Bar
	total  int64
	failed atomic.Int64           // steps that failed; read by the bar's decorator
	left   atomic.Pointer[string] // why a wave that never got ready ended
}

// newLive starts a live display on tty. The caller must call close.
func newLive(tty *os.File, o liveOptions) *liveDisplay {
	opts := []mpb.ContainerOption{mpb.WithOutput(tty), mpb.WithRefreshRate(liveRefresh)}
	if o.Refresh != nil {
		opts = append(opts, mpb.WithManualRefresh(o.Refresh))
	}
	l := &liveDisplay{tty: tty, p: mpb.New(opts...), waves: map[int]*waveBar{}, color: o.Color}
	l.setDoing("starting")
	l.status = l.p.New(0, mpb.NopStyle(), mpb.BarFillerTrim(), mpb.BarPriority(math.MaxInt32),
		mpb.PrependDecorators(decor.Spinner(nil, decor.WC{W: 2, C: decor.DindentRight}),
			decor.Any(func(decor.Statistics) string { return *l.doing.Load() })))
	return l
}

func (l *liveDisplay) setDoing(s string) { l.doing.Store(&s) }

// emit is the display's func(progress.Event): it updates the bars and the spinner
// and prints the event's line, if it has one, above them.
func (l *liveDisplay) emit(e progress.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	switch e.Kind {
	case progress.RunStarted:
		l.setDoing("run " + e.Run)
	case progress.WaveStarted:
		l.waveStarted(e)
	case progress.StepFinished:
		l.stepFinished(e)
	case progress.Waiting:
		l.setDoing(waitingText(e))
	case progress.WaveReady:
		l.waveReady(e)
	case progress.Compensating:
		l.setDoing("undoing completed steps")
	case progress.RunFinished:
		l.finish(e)
	}
	l.print(e)
}

// print writes an event's line above the bars, painted by what it says.
func (l *liveDisplay) print(e progress.Event) {
	line := eventLine(e)
	switch {
	case line == "":
		return
	case e.Kind == progress.Compensating && e.Result != "failed":
		line = l.paint("33", line) // undone, or left for a rollback
	case e.Error != "" || e.Result == "failed":
		line = l.paint("31", line)
	}
	fmt.Fprintln(l.p, line)
}

func (l *liveDisplay) paint(code, s string) string {
	if !l.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (l *liveDisplay) waveStarted(e progress.Event) {
	l.setDoing("applying " + waveName(e))
	if l.waves[e.Wave] != nil {
		return
	}
	w := &waveBar{name: waveName(e), total: int64(e.Objects)}
	w.bar = l.p.AddBar(0, mpb.BarWidth(liveBarWidth), mpb.BarPriority(e.Wave),
		mpb.PrependDecorators(decor.Name(w.name, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Any(w.counts)))
	w.bar.SetTotal(w.total, false)
	l.waves[e.Wave] = w
}

// counts is the bar's "3/100 steps" with how the wave stands.
func (w *waveBar) counts(s decor.Statistics) string {
	text := fmt.Sprintf("%d/%d steps", s.Current, s.Total)
	switch n := w.failed.Load(); {
	case n > 0:
		return fmt.Sprintf("%s, %d failed", text, n)
	case s.Completed:
		return text + ", ready"
	case s.Aborted:
		if why := w.left.Load(); why != nil {
			return text + ", " + *why
		}
		return text + ", not ready"
	}
	return text
}

// stepFinished counts a written step as done; a failed one is counted
// apart.
func (l *liveDisplay) stepFinished(e progress.Event) {
	w := l.waves[e.Wave]
	switch {
	case w == nil:
	case e.Error != "":
		w.failed.Add(1)
	default:
		w.bar.Increment()
	}
}

// waveReady completes the wave's bar: every object of it is in place.
func (l *liveDisplay) waveReady(e progress.Event) {
	w := l.waves[e.Wave]
	if w == nil {
		return
	}
	l.setDoing(w.name + " ready")
	w.bar.SetTotal(w.total, true)
}

// finish keeps the run's end for close and stops the bars, so the frame
// drawn next is the last.
func (l *liveDisplay) finish(e progress.Event) {
	l.end = endText(e)
	if e.Phase == string(release.PhaseFinished) {
		l.end = l.paint("32", l.end)
	} else {
		l.end = l.paint("31", l.end)
	}
	l.ended = true
	why := "not ready"
	switch release.Phase(e.Phase) {
	case release.PhaseStopped:
		why = "stopped"
	case release.PhaseCompensated:
		why = "undone"
	}
	for _, w := range l.waves {
		w.left.Store(&why)
	}
	l.stop()
}

// stop aborts the bars still running, waves kept on screen and the spinner
// dropped. The spinner goes last: mpb draws a final frame when its last
// running bar ends.
func (l *liveDisplay) stop() {
	for _, w := range l.waves {
		w.bar.Abort(false)
	}
	l.status.Abort(true)
}

// close stops the display, waits for mpb to draw its last frame and end
// its goroutines, then prints how the run ended below it. It is called
// after the run; later events and calls do nothing.
func (l *liveDisplay) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.ended, l.closed = true, true
	l.stop()
	l.p.Wait()
	if l.end != "" {
		fmt.Fprintln(l.tty, l.end)
	}
	l.end = ""
}
