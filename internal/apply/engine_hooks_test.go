package apply

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pynenc/piceli/internal/journal"
)

// BeforeWrites runs for each wave with writes, once its intents are
// durable and before any of them is sent: a shared release pushes its
// journal there, so the copy another machine resumes from already holds
// the wave's steps in doubt when the run dies among its writes.
func TestBeforeWritesSeesTheWaveInDoubtAndNothingWritten(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	var waves []int
	e.Options.BeforeWrites = func(_ context.Context, wave int) error {
		waves = append(waves, wave)
		name := []string{"a", "b"}[wave]
		_, st := replayRun(t, e.StateDir, "run-1")
		if got := st.InDoubt(); !slices.Equal(got, []int{wave}) {
			t.Errorf("wave %d: the durable journal holds steps %v in doubt, want [%d]", wave, got, wave)
		}
		if n := len(c.sent("patch", name)); n != 0 {
			t.Errorf("wave %d: %d writes of %s sent before the hook, want none", wave, n, name)
		}
		return nil
	}
	if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b")); err != nil {
		t.Fatalf("Apply() = %v", err)
	}
	if !slices.Equal(waves, []int{0, 1}) {
		t.Errorf("BeforeWrites ran for waves %v, want [0 1]", waves)
	}
}

// A BeforeWrites failure ends the run as failed, resumable, with nothing
// of that wave written; resume settles its step as not applied and writes
// it once.
func TestBeforeWritesFailureWritesNothingOfTheWave(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	e.Options.BeforeWrites = func(_ context.Context, wave int) error {
		if wave == 1 {
			return errLease
		}
		return nil
	}
	in := creates(t, "a", "b")
	res, err := e.Apply(t.Context(), "run-1", in)
	if !errors.Is(err, errLease) || res.Status != journal.StatusFailed {
		t.Fatalf("Apply() = %v (status %s), want the hook's error and a failed run", err, res.Status)
	}
	if n := len(c.sent("patch", "b")); n != 0 {
		t.Fatalf("%d writes of b sent, want none", n)
	}
	e.Options.BeforeWrites = nil
	if _, err := e.Resume(t.Context(), "run-1", in); err != nil {
		t.Fatalf("Resume() = %v", err)
	}
	if n := len(c.sent("patch", "b")); n != 1 {
		t.Errorf("%d writes of b across the run and its resume, want 1", n)
	}
	if n := len(c.sent("patch", "a")); n != 1 {
		t.Errorf("%d writes of a across the run and its resume, want 1", n)
	}
}

// A stop asked from elsewhere (StopAsked) stops the run like a stop
// request file: at the next wave, after the waves already written, ending
// "stopped", and resumable.
func TestStopAskedFromElsewhereStopsTheRun(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{})
	asked := false
	e.Options.AfterWave = func(_ context.Context, wave int) error {
		asked = wave == 0
		return nil
	}
	e.Options.StopAsked = func(context.Context) bool { return asked }
	in := creates(t, "a", "b")
	res, err := e.Apply(t.Context(), "run-1", in)
	if !errors.Is(err, ErrStopped) || res.Status != journal.StatusStopped {
		t.Fatalf("Apply() = %v (status %s), want ErrStopped and a stopped run", err, res.Status)
	}
	if n := len(c.sent("patch", "b")); n != 0 {
		t.Fatalf("%d writes of b after the stop was asked, want none", n)
	}
	asked = false
	if _, err := e.Resume(t.Context(), "run-1", in); err != nil {
		t.Fatalf("Resume() = %v", err)
	}
	if n := len(c.sent("patch", "b")); n != 1 {
		t.Errorf("%d writes of b after the resume, want 1", n)
	}
}
