package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// An apply killed with SIGKILL on one machine, at a wave boundary or among
// a wave's writes, is resumed by "release resume" on another machine with an empty
// state directory: every step is applied exactly once across both (the
// resumed journal holds the first machine's records), and both machines
// then list the same revision.
func TestSharedStateResumeOnAnotherMachine(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	for _, armed := range []string{
		apply.FailBeforeWaveReady + ":3", // the Deployment written, not yet ready
		apply.FailAfterWaveReady + ":2",  // ConfigMaps and Service ready, that not yet pushed
		// Among a wave's writes, no outcome of the wave journaled: two of
		// wave 1's ConfigMaps written, the third in flight or not sent;
		// and the Deployment of wave 3 written. Only the push before a
		// wave's writes tells the other machine they are in doubt.
		apply.FailAfterWrite + ":2",
		apply.FailAfterWrite + ":5",
	} {
		t.Run(armed, func(t *testing.T) {
			t.Parallel()
			a := newRelease(t, sb, sharedState, smallManifests())
			p := a.plan(t)
			proc := startPiceli(t, armed, "release", "apply", "--spec", a.spec, "--approve", p.Hash)
			if got := proc.wait(t, time.Minute); got != "killed" {
				t.Fatalf("apply with %s=%s: %s, want killed; output:\n%s", apply.FailpointEnv, armed, got, proc.out.String())
			}
			if _, st := a.latestRun(t); st.Status != journal.StatusRunning {
				t.Fatalf("journal of the killed run says %s, want running (interrupted)", st.Status)
			}

			b := newReleaseIn(t, sb, a.ns, sharedState, smallManifests())
			res := run(t, "release", "resume", "--spec", b.spec)
			if res.code != ExitOK {
				t.Fatalf("release resume on the second machine: exit %d\n%s\nkilled apply's output:\n%s", res.code, res.stderr, proc.out.String())
			}
			b.assertFinished(t, p)
			run, _ := b.latestRun(t)
			for name, r := range map[string]*testRelease{"first": a, "second": b} {
				if res := runHistory(t, r); res != fmt.Sprintf("1 %s", run) {
					t.Errorf("the %s machine's history ends with revision %q, want 1 from run %s", name, res, run)
				}
			}
		})
	}
}

// runHistory runs "release history" on r (pulling the shared state) and
// returns its latest revision as "NUMBER RUN".
func runHistory(t *testing.T, r *testRelease) string {
	t.Helper()
	if res := run(t, "release", "history", "--spec", r.spec); res.code != ExitOK {
		t.Fatalf("release history: exit %d\n%s", res.code, res.stderr)
	}
	revs, err := history.List(r.stateDir)
	if err != nil || len(revs) == 0 {
		return fmt.Sprintf("none (%v)", err)
	}
	last := revs[len(revs)-1]
	return fmt.Sprintf("%d %s", last.Number, last.Run)
}

// A second apply killed before its first push (its intents durable,
// nothing written, the cluster still naming the first run as the latest)
// is resumed on the same machine after another machine pushed a plan:
// pulling the shared state does not take the cache's latest run back to
// the first one.
func TestSharedStateResumeBeforeTheFirstPush(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	r := newRelease(t, sb, sharedState, smallManifests())
	r.apply(t, r.plan(t))
	r.setManifest(t, "cm-a.yaml", configMapYAML("a", "value", "2"))
	p := r.plan(t)
	armed := apply.FailAfterIntent + ":1"
	proc := startPiceli(t, armed, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if got := proc.wait(t, time.Minute); got != "killed" {
		t.Fatalf("apply with %s=%s: %s, want killed; output:\n%s", apply.FailpointEnv, armed, got, proc.out.String())
	}
	// Meanwhile another machine plans, so the shared state moves on.
	b := newReleaseIn(t, sb, r.ns, sharedState, smallManifests())
	b.setManifest(t, "cm-a.yaml", configMapYAML("a", "value", "3")) // a plan of its own
	b.plan(t)
	if res := run(t, "release", "resume", "--spec", r.spec); res.code != ExitOK {
		t.Fatalf("release resume: exit %d\n%s", res.code, res.stderr)
	}
	r.assertFinished(t, p)
}

// "release stop" on another machine stops a shared release's run: the
// second machine sees the run as running on the first (not interrupted),
// asks it to stop through the release's Lease, and the first machine's
// run stops after its in-flight writes, ending "stopped"; the second then
// resumes it to the end, every step applied once.
func TestSharedStateStopFromAnotherMachine(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	a := newRelease(t, sb, sharedState, smallManifests())
	p := a.plan(t)
	// Held for 6s once wave 2's intents are durable, as a slow write would.
	proc := startPiceli(t, apply.FailAfterIntent+":2:6s", "release", "apply", "--spec", a.spec, "--approve", p.Hash)
	id := a.waitForJournal(t, "wave 1 ready and wave 2's intents", func(st journal.State) bool { return st.WavesReady >= 1 && len(st.InDoubt()) > 0 })

	b := newReleaseIn(t, sb, a.ns, sharedState, smallManifests())
	var st struct {
		Run struct{ ID, Phase, Holder string } `json:"run"`
	}
	res := run(t, "release", "run", "--spec", b.spec, "-o", "json")
	if err := json.Unmarshal([]byte(res.stdout), &st); err != nil || res.code != ExitOK {
		t.Fatalf("release run on the second machine: exit %d, %v\n%s", res.code, err, res.stderr)
	}
	if st.Run.ID != id || st.Run.Phase != "running" || !strings.Contains(st.Run.Holder, "(run "+id+")") {
		t.Errorf("the second machine's status of run %s: %+v, want it running, held by the first machine's process", id, st.Run)
	}
	res = run(t, "release", "stop", "--spec", b.spec)
	if res.code != ExitOK || !strings.Contains(res.stdout, "through the lease "+a.ns+"/piceli-release-demo") {
		t.Fatalf("release stop on the second machine: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if got := proc.wait(t, time.Minute); got != "exit 1" {
		t.Fatalf("the first machine's apply ended with %s, want exit 1 (stopped):\n%s", got, proc.out.String())
	}
	if !strings.Contains(proc.out.String(), "a stop was asked through lease") {
		t.Errorf("the stopped apply does not say why it stopped:\n%s", proc.out.String())
	}
	if _, st := a.latestRun(t); st.Status != journal.StatusStopped {
		t.Fatalf("the first machine's journal says %s, want stopped", st.Status)
	}
	if res := run(t, "release", "resume", "--spec", b.spec); res.code != ExitOK {
		t.Fatalf("release resume on the second machine: exit %d\n%s", res.code, res.stderr)
	}
	b.assertFinished(t, p)
}
