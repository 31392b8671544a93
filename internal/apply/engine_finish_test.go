package apply

import (
	"context"
	"errors"
	"testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/progress"
)

// errLease is an AfterWave hook's failure, as when the cluster lease is
// held by another process.
var errLease = errors.New("the release's lease is held by someone else")

// TestApplyEndsTheRunByHowItEnded checks how finish maps the way a run of
// creates(a, b) ended to its status, its last journal record and the event
// the engine reports, with and without Options.Compensate. The hook runs
// after wave 0, so only a is written when it acts.
func TestApplyEndsTheRunByHowItEnded(t *testing.T) {
	tests := []struct {
		name       string
		compensate bool
		hook       func(e *Engine, cancel context.CancelFunc) error // nil: none
		wantStatus journal.RunStatus
		wantLast   journal.Type
		wantErr    func(error) bool
		keepsA     bool // a is still in the cluster afterwards
	}{
		{
			name:       "a run whose every wave is ready finishes",
			wantStatus: journal.StatusFinished, wantLast: journal.RunFinished, wantErr: isNil, keepsA: true,
		},
		{
			name:       "a stop request stops it",
			hook:       func(e *Engine, _ context.CancelFunc) error { return RequestStop(e.StateDir, "run-1", "test") },
			wantStatus: journal.StatusStopped, wantLast: journal.RunStopped, wantErr: is(ErrStopped), keepsA: true,
		},
		{
			name: "a stop request stops it even when failures are compensated", compensate: true,
			hook:       func(e *Engine, _ context.CancelFunc) error { return RequestStop(e.StateDir, "run-1", "test") },
			wantStatus: journal.StatusStopped, wantLast: journal.RunStopped, wantErr: is(ErrStopped), keepsA: true,
		},
		{
			name:       "any other error fails it",
			hook:       func(*Engine, context.CancelFunc) error { return errLease },
			wantStatus: journal.StatusFailed, wantLast: journal.RunFailed, wantErr: is(errLease), keepsA: true,
		},
		{
			name: "any other error compensates it when asked", compensate: true,
			hook:       func(*Engine, context.CancelFunc) error { return errLease },
			wantStatus: journal.StatusCompensated, wantLast: journal.Compensated, wantErr: compensated(errLease),
		},
		{
			name: "a cancelled run fails without compensating", compensate: true,
			hook:       func(_ *Engine, cancel context.CancelFunc) error { cancel(); return context.Canceled },
			wantStatus: journal.StatusFailed, wantLast: journal.RunFailed, wantErr: is(context.Canceled), keepsA: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			var seen events
			e := newEngine(t, c, Options{Compensate: tt.compensate})
			e.Events = seen.sink()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.hook != nil {
				e.Options.AfterWave = func(_ context.Context, wave int) error {
					if wave != 0 {
						return nil
					}
					return tt.hook(e, cancel)
				}
			}

			res, err := e.Apply(ctx, "run-1", creates(t, "a", "b"))
			if !tt.wantErr(err) {
				t.Fatalf("Apply() error = %v, not what the case wants", err)
			}
			if res == nil || res.Status != tt.wantStatus {
				t.Fatalf("Apply() = %+v, want status %s", res, tt.wantStatus)
			}
			recs, st := replayRun(t, e.StateDir, "run-1")
			if last := recs[len(recs)-1].Type; last != tt.wantLast || st.Status != tt.wantStatus {
				t.Errorf("journal ends with %s, replays as %s; want %s, %s", last, st.Status, tt.wantLast, tt.wantStatus)
			}
			ev := seen.last()
			if ev.Kind != progress.RunFinished || ev.Phase != string(tt.wantStatus) || (err == nil) != (ev.Error == "") {
				t.Errorf("last event = %+v, want run-finished %s carrying the error %v", ev, tt.wantStatus, err)
			}
			if got := c.configMap("a") != nil; got != tt.keepsA {
				t.Errorf("a in the cluster afterwards: %v, want %v", got, tt.keepsA)
			}
			wantRevs := 0
			if err == nil {
				wantRevs = 1
			}
			if n := len(revisions(t, e.StateDir)); n != wantRevs {
				t.Errorf("history.List() holds %d revisions, want %d", n, wantRevs)
			}
			if stopRequested(e.StateDir, "run-1") {
				t.Errorf("the stop request outlived the run: a resume would stop at once")
			}
		})
	}
}

func isNil(err error) bool { return err == nil }

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// compensated matches a *CompensatedError caused by cause.
func compensated(cause error) func(error) bool {
	return func(err error) bool {
		var ce *CompensatedError
		return errors.As(err, &ce) && errors.Is(ce.Cause, cause)
	}
}
