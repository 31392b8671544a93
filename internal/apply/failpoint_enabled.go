//go:build piceli_failpoints

package apply

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FailpointsBuilt reports whether this binary was built with -tags
// piceli_failpoints, the only build in which FailpointEnv arms a failpoint.
const FailpointsBuilt = true

// failpoint kills the process with SIGKILL when the armed failpoint is
// reached for the armed time: no deferred function, no flush, as in a crash.
type failpoint struct {
	mu    sync.Mutex
	name  string
	at    int
	count int
	pause time.Duration // zero: SIGKILL
}

// armedFailpoint reads FailpointEnv; nil when it is unset.
func armedFailpoint() *failpoint {
	v := os.Getenv(FailpointEnv)
	if v == "" {
		return nil
	}
	parts := strings.SplitN(v, ":", 3)
	f := &failpoint{name: parts[0], at: 1}
	if len(parts) > 1 {
		if at, err := strconv.Atoi(parts[1]); err == nil && at > 0 {
			f.at = at
		}
	}
	if len(parts) > 2 {
		f.pause, _ = time.ParseDuration(parts[2])
	}
	return f
}

// hit counts a pass through the failpoint name and, on the armed pass,
// pauses or kills the process. It does nothing on a nil failpoint.
func (f *failpoint) hit(ctx context.Context, name string) {
	if f == nil || name != f.name {
		return
	}
	f.mu.Lock()
	f.count++
	due := f.count == f.at
	f.mu.Unlock()
	switch {
	case due && f.pause > 0:
		// a test holds the run here on purpose, as a slow request would,
		// and like one it ends when the run is cancelled
		select {
		case <-time.After(f.pause):
		case <-ctx.Done():
		}
	case due:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
