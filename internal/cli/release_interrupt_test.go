package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The first Ctrl-C of an apply stops it after its in-flight writes, as
// "release stop" does: the journal ends stopped with nothing in doubt, the
// command says how to resume, and resume completes the plan.
func TestFirstInterruptStopsCleanly(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	// Held once the first wave's intents are durable: the interrupt arrives
	// while its writes are about to be sent.
	proc := startPiceli(t, apply.FailAfterIntent+":1:3s", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	r.waitForJournal(t, "an intent", func(st journal.State) bool { return len(st.Steps) > 0 })
	proc.cmd.Process.Signal(os.Interrupt)

	if got := proc.wait(t, time.Minute); got != "exit 1" {
		t.Fatalf("the interrupted apply ended with %s, want exit 1; output:\n%s", got, proc.out.String())
	}
	for _, want := range []string{"stopping after in-flight writes", "stopped; continue it with: piceli release resume"} {
		if !strings.Contains(proc.out.String(), want) {
			t.Errorf("the interrupted apply does not say %q:\n%s", want, proc.out.String())
		}
	}
	id, st := r.latestRun(t)
	if st.Status != journal.StatusStopped || len(st.InDoubt()) > 0 {
		t.Fatalf("journal of run %s: %s with %v in doubt; want stopped with nothing in doubt", id, st.Status, st.InDoubt())
	}
	if res := run(t, "release", "resume", "--spec", r.spec); res.code != ExitOK {
		t.Fatalf("release resume: exit %d\n%s", res.code, res.stderr)
	}
	r.assertFinished(t, p)
}

// A second Ctrl-C abandons what the first was waiting for: the command ends
// at once with a clear message instead of finishing its in-flight write,
// the run ends failed rather than cleanly stopped, the locks are released,
// and resume finishes the plan without writing any step twice.
func TestSecondInterruptAbandonsInFlightWrites(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	// Held for a minute after the first write lands, before its outcome is
	// journaled: a write in flight that the first Ctrl-C must wait for.
	proc := startPiceli(t, apply.FailAfterWrite+":1:60s", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	proc.waitForOutput(t, apply.FailpointPausedMarker+" "+apply.FailAfterWrite, time.Minute)

	proc.cmd.Process.Signal(os.Interrupt)
	select {
	case <-proc.done:
		t.Fatalf("the first Ctrl-C ended the apply before its in-flight write settled:\n%s", proc.out.String())
	case <-time.After(2 * time.Second):
	}
	start := time.Now()
	proc.cmd.Process.Signal(os.Interrupt)
	if got := proc.wait(t, 20*time.Second); got != "exit 1" {
		t.Fatalf("the twice-interrupted apply ended with %s, want exit 1; output:\n%s", got, proc.out.String())
	}
	if waited := time.Since(start); waited > 15*time.Second {
		t.Errorf("the second Ctrl-C took %s to end the apply", waited)
	}
	if !strings.Contains(proc.out.String(), "interrupted, in-flight writes abandoned; resume it with: piceli release resume") {
		t.Errorf("the abandoned apply does not say what happened and how to resume:\n%s", proc.out.String())
	}
	if id, st := r.latestRun(t); st.Status != journal.StatusFailed {
		t.Errorf("journal of run %s says %s, want failed: the second Ctrl-C must not wait for a clean stop", id, st.Status)
	}
	if res := run(t, "release", "resume", "--spec", r.spec); res.code != ExitOK {
		t.Fatalf("release resume (the locks must be free): exit %d\n%s", res.code, res.stderr)
	}
	r.assertFinished(t, p)
}
