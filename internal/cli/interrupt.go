package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
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

// ExitInterrupted is the exit code of a command abandoned after an
// interrupt (128 + SIGINT, as shells report it).
const ExitInterrupted = 130

// interruptGrace is how long a command that has nothing journaled in
// flight gets, once interrupted, to end by itself before Run returns
// without it: a read or a request that ignores its context (a FIFO's open,
// a device read) must not keep the process alive. It outlasts the bounded
// cleanups commands do on an interrupt (an import gives its tool 3 s
// between SIGTERM and SIGKILL, then writes its receipt).
const interruptGrace = 5 * time.Second

// promptly runs cmd and returns its exit code, or ExitInterrupted when ctx
// was cancelled by an interrupt while no run was registered and cmd has
// not ended within interruptGrace. A command with a run registered is
// always waited for: its journal decides what the interrupt means.
func promptly(ctx context.Context, stderr io.Writer, cmd func() int) int {
	done := make(chan int, 1)
	go func() { done <- cmd() }()
	select {
	case code := <-done:
		return code
	case <-idleInterrupt(ctx):
	}
	select {
	case code := <-done:
		return code
	case <-time.After(interruptGrace):
		fmt.Fprintln(stderr, "piceli: interrupted; nothing journaled was in flight")
		return ExitInterrupted
	}
}

// idleInterrupt returns a channel closed when ctx ends while no run is
// registered with its interrupts; nil (never closed) when ctx has none.
func idleInterrupt(ctx context.Context) <-chan struct{} {
	in, ok := ctx.Value(interruptsKey{}).(*interrupts)
	if !ok {
		return nil
	}
	out := make(chan struct{})
	go func() {
		<-ctx.Done()
		in.mu.Lock()
		idle := in.soft == nil
		in.mu.Unlock()
		if idle {
			close(out)
		}
	}()
	return out
}
