package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// lockStart takes a machine-wide lock for the duration of `kwokctl create`.
// kwokctl picks each component's port by checking that nothing listens on
// it, then starts the components: two sandboxes starting at once (tests in
// parallel packages do) pick the same ports, and one's API server fails
// with "address already in use" while kwokctl waits for it until killed.
// Under the lock the second sees the first's ports taken.
func lockStart(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), "piceli-sandbox-start.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("lock sandbox start: %w", err)
	}
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock sandbox start %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
