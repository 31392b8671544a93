package cli

import (
	"fmt"
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
