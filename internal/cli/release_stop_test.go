package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// "release stop" from another process ends a running apply cleanly: it
// exits 1, its journal ends stopped with the rest of the plan unwritten,
// and "release resume" completes it.
func TestStopFromAnotherProcessThenResume(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	// The apply pauses once the ConfigMaps' intents are durable, so the stop
	// request arrives while the run is known to be in its first wave.
	proc := startPiceli(t, apply.FailAfterIntent+":1:4s", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	r.waitForJournal(t, "an intent", func(st journal.State) bool { return len(st.Steps) > 0 })

	stop := run(t, "release", "stop", "--spec", r.spec)
	if stop.code != ExitOK || !strings.Contains(stop.stdout, "stop requested") {
		t.Fatalf("release stop: exit %d\n%s%s", stop.code, stop.stdout, stop.stderr)
	}
	if got := proc.wait(t, time.Minute); got != "exit 1" {
		t.Fatalf("the stopped apply ended with %s, want exit 1; output:\n%s", got, proc.out.String())
	}
	if !strings.Contains(proc.out.String(), "stopped; continue it with: piceli release resume") {
		t.Errorf("the stopped apply does not say how to continue:\n%s", proc.out.String())
	}
	id, st := r.latestRun(t)
	if st.Status != journal.StatusStopped {
		t.Fatalf("journal of run %s says %s, want stopped", id, st.Status)
	}
	if pending := st.Pending(len(p.Steps)); len(pending) == 0 || len(st.InDoubt()) > 0 {
		t.Errorf("stopped run: pending steps %v, in doubt %v; want later waves unwritten and nothing in doubt", pending, st.InDoubt())
	}
	if again := run(t, "release", "stop", "--spec", r.spec); again.code != ExitRefused {
		t.Errorf("stop of a stopped run: exit %d, want %d\n%s", again.code, ExitRefused, again.stderr)
	}

	res := run(t, "release", "resume", "--spec", r.spec)
	if res.code != ExitOK {
		t.Fatalf("release resume: exit %d\n%s", res.code, res.stderr)
	}
	r.assertFinished(t, p)
}
