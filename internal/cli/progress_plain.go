package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pynenc/piceli/progress"
)

// How often plain lines repeat a wave's wait. A wait whose text changed
// (other counts or names) prints at most every waitEvery; one that did not
// change prints again after calmFirst, then after an interval that doubles
// up to calmMost, so a wait of 5 minutes on one object prints 4 lines, not
// one per poll.
const (
	waitEvery = 5 * time.Second
	calmFirst = 30 * time.Second
	calmMost  = 5 * time.Minute
)

// plainLines prints one line per event for a reader that is not a
// terminal. A wave's first wait prints at once; later waits print when
// what is waited for changed (at most every waitEvery) and otherwise at a
// calm interval (calmFirst, doubling up to calmMost), saying how long the
// wave has waited; each line has counts and at most progress.MaxNames names.
// A run's end prints once, however many run-finished events it sends; a
// run that fails and is rolled back is followed by the rollback's run,
// whose end prints too.
type plainLines struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	waits map[int]*waitShown // wave → what its waiting lines showed
	ended map[string]bool    // runs whose end printed
}

// waitShown is what a wave's waiting lines last printed, and when.
type waitShown struct {
	since time.Time     // the wave's first wait
	at    time.Time     // the last line
	text  string        // the last line's text
	calm  time.Duration // how long an unchanged wait stays quiet
}

// newPlain returns plain lines on w; now reads the clock, time.Now when nil.
func newPlain(w io.Writer, now func() time.Time) *plainLines {
	if now == nil {
		now = time.Now
	}
	return &plainLines{w: w, now: now, waits: map[int]*waitShown{}, ended: map[string]bool{}}
}

// emit is the func(progress.Event) of plain lines.
func (p *plainLines) emit(e progress.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line := p.line(e); line != "" {
		fmt.Fprintln(p.w, line)
	}
}

func (p *plainLines) line(e progress.Event) string {
	switch e.Kind {
	case progress.WaveStarted:
		return fmt.Sprintf("%s (%s)", waveName(e), objectCount(e.Objects))
	case progress.StepFinished:
		if e.Error == "" {
			return fmt.Sprintf("  done    %s %s", e.Action, e.Ref)
		}
	case progress.Waiting:
		return p.waitLine(e)
	case progress.RunStarted:
		p.waits = map[int]*waitShown{}
	case progress.RunFinished:
		if p.ended[e.Run] {
			return ""
		}
		p.ended[e.Run] = true
		return endText(e)
	}
	return eventLine(e)
}

// waitLine is the line of a wait, or "" while its wave stays quiet: its
// text changed less than waitEvery after the last line, or did not change
// and the calm interval has not passed.
func (p *plainLines) waitLine(e progress.Event) string {
	now, text := p.now(), waitingText(e)
	w, ok := p.waits[e.Wave]
	switch {
	case !ok:
		p.waits[e.Wave] = &waitShown{since: now, at: now, text: text, calm: calmFirst}
		return "  " + text
	case text != w.text && now.Sub(w.at) >= waitEvery:
		w.at, w.text, w.calm = now, text, calmFirst
		return "  " + text
	case text == w.text && now.Sub(w.at) >= w.calm:
		w.at, w.calm = now, min(2*w.calm, calmMost)
		return fmt.Sprintf("  still %s (%s)", text, now.Sub(w.since).Round(time.Second))
	}
	return ""
}

// objectCount says "1 object" or "N objects".
func objectCount(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}
