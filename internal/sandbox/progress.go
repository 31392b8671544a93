package sandbox

import (
	"fmt"
	"io"
	"sync"
)

// Progress receives one human-readable line per step of long work (building
// binaries, starting components, waiting for nodes). A nil Progress discards.
type Progress interface {
	Step(line string)
}

// ProgressTo returns a Progress that writes each line to w; nil w discards.
func ProgressTo(w io.Writer) Progress {
	return writerProgress{w: w}
}

type writerProgress struct{ w io.Writer }

func (p writerProgress) Step(line string) {
	if p.w != nil {
		fmt.Fprintln(p.w, line)
	}
}

// stepf sends a formatted line to p when p is not nil.
func stepf(p Progress, format string, args ...any) {
	if p != nil {
		p.Step(fmt.Sprintf(format, args...))
	}
}

// lockedProgress serialises lines from concurrent steps (parallel builds).
type lockedProgress struct {
	mu sync.Mutex
	p  Progress
}

func (l *lockedProgress) Step(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		l.p.Step(line)
	}
}
