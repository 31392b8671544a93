package release

import (
	"testing"

	"github.com/pynenc/piceli/internal/lock"
)

func TestLiveness(t *testing.T) {
	const run, journaled = "20261201-100000-aaaaaa", "alice@host pid 41 (run 20261201-100000-aaaaaa)"
	live := lock.Holder{User: "alice", Host: "host", PID: 42, Run: run}
	tests := []struct {
		name       string
		h          lock.Holder
		held       bool
		wantPhase  Phase
		wantHolder string
	}{
		{"the lock held for the run: running, by the lock's holder", live, true, PhaseRunning, live.String()},
		{"the lock free: interrupted, last run by the journal's holder", live, false, PhaseInterrupted, journaled},
		{"the lock free, no record left: interrupted", lock.Holder{}, false, PhaseInterrupted, journaled},
		{"the lock held by a command without a run (gc): interrupted", lock.Holder{User: "bob", PID: 7}, true, PhaseInterrupted, journaled},
		{"the lock held by another run: interrupted", lock.Holder{User: "bob", PID: 7, Run: "other"}, true, PhaseInterrupted, journaled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			phase, holder := liveness(run, journaled, tt.h, tt.held)
			if phase != tt.wantPhase || holder != tt.wantHolder {
				t.Errorf("liveness(%s, %q, %v, %v) = %s, %q; want %s, %q", run, journaled, tt.h, tt.held, phase, holder, tt.wantPhase, tt.wantHolder)
			}
		})
	}
}
