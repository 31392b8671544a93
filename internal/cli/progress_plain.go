package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pynenc/piceli/release"
)

// waitEvery is how often plain lines repeat a wave's wait.
const waitEvery = 5 * time.Second

// plainLines prints one line per event for a reader that is not a
// terminal. A wave's first wait prints at once and repeats at most every
// waitEvery, with counts and at most release.MaxNames names. A run's end
// prints once, however many run-finished events it sends; a run that fails
// and is rolled back is followed by the rollback's run, whose end prints too.
type plainLines struct {
	mu     sync.Mutex
	w      io.Writer
	now    func() time.Time
	waited map[int]time.Time // wave → when its last waiting line printed
	ended  map[string]bool   // runs whose end printed
}

// newPlain returns plain lines on w; now reads the clock, time.Now when nil.
func newPlain(w io.Writer, now func() time.Time) *plainLines {
	if now == nil {
		now = time.Now
	}
	return &plainLines{w: w, now: now, waited: map[int]time.Time{}, ended: map[string]bool{}}
}

// emit is the func(release.Event) of plain lines.
func (p *plainLines) emit(e release.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line := p.line(e); line != "" {
		fmt.Fprintln(p.w, line)
	}
}

func (p *plainLines) line(e release.Event) string {
	switch e.Kind {
	case release.WaveStarted:
		return fmt.Sprintf("%s (%s)", waveName(e), objectCount(e.Objects))
	case release.StepFinished:
		if e.Error == "" {
			return fmt.Sprintf("  done    %s %s", e.Action, e.Ref)
		}
	case release.Waiting:
		return p.waitLine(e)
	case release.RunStarted:
		p.waited = map[int]time.Time{}
	case release.RunFinished:
		if p.ended[e.Run] {
			return ""
		}
		p.ended[e.Run] = true
		return endText(e)
	}
	return eventLine(e)
}

// waitLine is the line of a wait, or "" when its wave printed one less
// than waitEvery ago.
func (p *plainLines) waitLine(e release.Event) string {
	now := p.now()
	if last, ok := p.waited[e.Wave]; ok && now.Sub(last) < waitEvery {
		return ""
	}
	p.waited[e.Wave] = now
	return "  " + waitingText(e)
}

// objectCount says "1 object" or "N objects".
func objectCount(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}
