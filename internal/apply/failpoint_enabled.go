//go:build piceli_failpoints

package apply

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pynenc/piceli/internal/journal"
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
		fmt.Fprintln(os.Stderr, FailpointPausedMarker, name)
		select {
		case <-time.After(f.pause):
		case <-ctx.Done():
		}
	case due:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

// journalSyncs counts the journal fsyncs of this process and remembers
// the journals whose injected fsync failure already happened.
var journalSyncs struct {
	mu     sync.Mutex
	n      int
	failed map[string]bool
}

// errInjectedSync is the fsync failure JournalFaultEnv injects.
var errInjectedSync = fmt.Errorf("fsync: %w (injected by %s)", syscall.EIO, JournalFaultEnv)

// journalOptions hooks the journal at path when JournalFaultEnv says
// "fsync:N": the N-th journal fsync of the process fails, and any later
// fsync of a journal whose fsync failed is reported on stderr.
func journalOptions(path string) journal.Options {
	n, ok := strings.CutPrefix(os.Getenv(JournalFaultEnv), "fsync:")
	at, err := strconv.Atoi(n)
	if !ok || err != nil || at < 1 {
		return journal.Options{}
	}
	return journal.Options{BeforeSync: func() error { return beforeJournalSync(path, at) }}
}

func beforeJournalSync(path string, at int) error {
	journalSyncs.mu.Lock()
	defer journalSyncs.mu.Unlock()
	if journalSyncs.failed[path] {
		fmt.Fprintln(os.Stderr, JournalRetryMarker, path)
	}
	journalSyncs.n++
	if journalSyncs.n != at {
		return nil
	}
	if journalSyncs.failed == nil {
		journalSyncs.failed = map[string]bool{}
	}
	journalSyncs.failed[path] = true
	return errInjectedSync
}
