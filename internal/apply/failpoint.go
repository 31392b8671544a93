package apply

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FailpointEnv names the environment variable that arms one failpoint, as
// NAME, NAME:N (the N-th time it is reached) or NAME:N:DURATION (pause there
// instead of dying, so a test can act while the run is in a known place).
// It exists for the fault suite, which kills the engine at every boundary
// and resumes; nothing arms a failpoint unless a test sets it.
const FailpointEnv = "PICELI_TEST_FAILPOINT"

// The named boundaries of a run, in the order a step meets them.
const (
	FailAfterRunStarted  = "after-run-started" // the run is journaled, nothing written
	FailAfterIntent      = "after-intent"      // a wave's intents are durable, no write sent
	FailAfterWrite       = "after-write"       // a write succeeded, its outcome not journaled
	FailAfterOutcome     = "after-outcome"     // a write and its outcome are durable
	FailBeforeWaveReady  = "before-wave-ready" // a wave is written, readiness not journaled
	FailAfterWaveReady   = "after-wave-ready"  // a wave is ready and journaled
	FailBeforeRunFinish  = "before-run-finish" // every wave is done, the run not closed
	FailAfterCompIntent  = "after-compensate-intent"
	FailAfterCompOutcome = "after-compensate-outcome"
)

// Failpoints lists every named failpoint, for the table-driven fault tests.
var Failpoints = []string{
	FailAfterRunStarted, FailAfterIntent, FailAfterWrite, FailAfterOutcome,
	FailBeforeWaveReady, FailAfterWaveReady, FailBeforeRunFinish,
}

// failpoint kills the process with SIGKILL when the armed failpoint is
// reached for the armed time: no deferred function, no flush, as in a crash.
type failpoint struct {
	mu    sync.Mutex
	name  string
	at    int
	count int
	pause time.Duration // zero: SIGKILL
}

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

func (f *failpoint) hit(name string) {
	if f == nil || name != f.name {
		return
	}
	f.mu.Lock()
	f.count++
	due := f.count == f.at
	f.mu.Unlock()
	switch {
	case due && f.pause > 0:
		time.Sleep(f.pause) // a test holds the run here on purpose
	case due:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
