package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lock takes an exclusive flock on the sandbox's lock file so that concurrent
// up and down of the same sandbox run one after the other. The lock goes
// away with the process, so a crash never leaves it held.
func (s *Sandbox) lock(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(s.layout.Workdir(), s.layout.Name+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock sandbox: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock sandbox: %w", err)
	}
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock sandbox %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// flockWait polls a non-blocking flock until it is granted or ctx ends.
func flockWait(ctx context.Context, f *os.File) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("held by another piceli: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}
