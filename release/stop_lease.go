package release

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/pynenc/piceli/internal/lock"
)

// stopAskedEvery is how often a run of a shared release reads its Lease
// for a stop asked from another machine.
const stopAskedEvery = 2 * time.Second

// stopWatch looks for a stop asked through a run's Lease (lock.RequestStop
// from "release stop" on another machine). It is safe for concurrent use:
// the engine asks from its readiness watcher while the run takes the Lease.
type stopWatch struct {
	mu    sync.Mutex
	lease *lock.LeaseLock // nil: nothing to read yet, or any more
	asked bool
	last  time.Time // when the Lease was last read
}

// watch makes lease (nil: none) the one read from now on.
func (w *stopWatch) watch(lease *lock.LeaseLock) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lease = lease
}

// stopAsked reports whether a stop was asked through the Lease, reading it
// at most every stopAskedEvery. A failed read counts as no request; the
// next one tries again. The first time it finds one it says so on log.
func (w *stopWatch) stopAsked(ctx context.Context, log func(format string, args ...any)) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.asked || w.lease == nil || time.Since(w.last) < stopAskedEvery {
		return w.asked
	}
	w.last = time.Now()
	asked, err := w.lease.StopRequested(ctx)
	if err == nil && asked {
		ns, name, _, _ := w.lease.Fence()
		log("state: a stop was asked through lease %s/%s; stopping once the writes in flight settle\n", ns, name)
		w.asked = true
	}
	return w.asked
}

// stopAsked is the engine's StopAsked for a run: only a release whose
// state is shared is stopped through its Lease.
func (l *runLock) stopAsked(ctx context.Context) bool {
	if !l.s.r.sharesState() {
		return false
	}
	return l.stops.stopAsked(ctx, func(format string, args ...any) { fmt.Fprintf(l.s.r.log(), format, args...) })
}
