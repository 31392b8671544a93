package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts turns Ctrl-C (and SIGTERM) into the two steps a writing
// command promises: the first asks the running release to stop after its
// in-flight writes (journaled, resumable); the second cancels the context,
// abandoning them. A command that runs nothing ends at the first.
type interrupts struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	soft   chan struct{} // closed at the first signal while a run is registered
	w      io.Writer     // where the first signal is acknowledged
	count  int
}

type interruptsKey struct{}

// SignalContext returns a context for the command tree that ends on the
// second interrupt, or on the first when no run is in progress, and a
// function that stops listening.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{cancel: cancel}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for range sigs {
			in.signal()
		}
	}()
	return context.WithValue(ctx, interruptsKey{}, in), func() { signal.Stop(sigs); cancel() }
}

func (in *interrupts) signal() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.count++
	if in.count == 1 && in.soft != nil {
		close(in.soft)
		fmt.Fprintln(in.w, "interrupt: stopping after in-flight writes; press Ctrl-C again to abandon them")
		return
	}
	in.cancel()
}

// softStop registers a run with the context's interrupts and returns the
// channel the first interrupt closes; nil when ctx has no interrupts (tests,
// library use), which never fires.
func softStop(ctx context.Context, w io.Writer) <-chan struct{} {
	in, ok := ctx.Value(interruptsKey{}).(*interrupts)
	if !ok {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.soft == nil {
		in.soft, in.w = make(chan struct{}), w
	}
	return in.soft
}
