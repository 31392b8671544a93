package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// killGrace is how long a tool has to exit after SIGTERM before SIGKILL.
const killGrace = 3 * time.Second

// streamTo runs the tool at path with args in its own process group,
// writes feed's output to its standard input, and waits for both. When ctx
// ends, the whole group gets SIGTERM and then SIGKILL, so no process of the
// pipeline outlives the call. It returns the bytes fed and the tail of the
// tool's output.
func streamTo(ctx context.Context, path string, args []string, feed func(io.Writer) error, log io.Writer) (int64, string, error) {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &tail{max: 8 << 10, also: log}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * killGrace // bound the wait for output pipes a stray process might hold
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, "", err
	}
	if err := cmd.Start(); err != nil {
		return 0, "", fmt.Errorf("start %s: %w", path, err)
	}
	stopped := make(chan struct{})
	go killOnCancel(ctx, cmd.Process.Pid, stopped)
	cw := &countingWriter{w: stdin}
	fed := make(chan error, 1)
	go func() {
		err := feed(cw)
		if cerr := stdin.Close(); err == nil && cerr != nil && !errors.Is(cerr, syscall.EPIPE) {
			err = cerr
		}
		fed <- err
	}()
	waitErr := cmd.Wait()
	close(stopped)
	feedErr := <-fed
	switch {
	case ctx.Err() != nil:
		return cw.n, out.String(), fmt.Errorf("interrupted: %w", context.Cause(ctx))
	case waitErr != nil:
		return cw.n, out.String(), fmt.Errorf("%s exited: %v: %s", path, waitErr, strings.TrimSpace(out.String()))
	case feedErr != nil:
		return cw.n, out.String(), fmt.Errorf("stream to %s: %w", path, feedErr)
	}
	return cw.n, out.String(), nil
}

// killOnCancel signals the process group pgid when ctx ends before stopped
// is closed: SIGTERM, then SIGKILL after killGrace.
func killOnCancel(ctx context.Context, pgid int, stopped <-chan struct{}) {
	select {
	case <-stopped:
		return
	case <-ctx.Done():
	}
	syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// tail keeps the last max bytes written to it and copies all to also.
type tail struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	also io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.also != nil {
		t.also.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
