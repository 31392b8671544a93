package apply

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/progress"
)

// fixedCheck passes or fails, counting its runs; it sees the cluster as the
// last wave left it.
func fixedCheck(name string, pass bool, runs *int) Check {
	return Check{Name: name, Kind: "command", Run: func(context.Context) journal.Check {
		*runs++
		if pass {
			return journal.Check{Passed: true, Attempts: 1, Excerpt: "ok"}
		}
		return journal.Check{Attempts: 1, Error: "exit status 1"}
	}}
}

// Checks run after the last wave in order, are journaled before and after
// each, and their results go into the revision.
func TestChecksRunAfterTheLastWaveAndGoIntoTheRevision(t *testing.T) {
	c := newFakeCluster()
	var order []string
	check := func(name string) Check {
		return Check{Name: name, Kind: "http", Run: func(context.Context) journal.Check {
			if c.configMap("b") == nil {
				t.Errorf("check %s ran before the last wave wrote b", name)
			}
			order = append(order, name)
			return journal.Check{Passed: true, Attempts: 1, DurationMS: 5}
		}}
	}
	var ev events
	e := newEngine(t, c, Options{Checks: []Check{check("one"), check("two")}})
	e.Events = ev.sink()
	res, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b"))
	if err != nil || res.Revision != 1 {
		t.Fatalf("Apply() = %+v, %v; want revision 1", res, err)
	}
	if diff := cmp.Diff([]string{"one", "two"}, order); diff != "" {
		t.Errorf("checks ran (-want +got):\n%s", diff)
	}
	recs, st := replayRun(t, e.StateDir, "run-1")
	want := []string{"run-started", "intent 0 create", "outcome 0 applied", "wave-ready 0", "intent 1 create", "outcome 1 applied", "wave-ready 1",
		"check-started", "check-finished", "check-started", "check-finished", "run-finished"}
	if diff := cmp.Diff(want, story(recs)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	results := []journal.Check{{Name: "one", Kind: "http", Passed: true, Attempts: 1, DurationMS: 5}, {Name: "two", Kind: "http", Passed: true, Attempts: 1, DurationMS: 5}}
	if diff := cmp.Diff(results, st.Checks); diff != "" {
		t.Errorf("replayed checks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&history.Checks{Results: results}, revisions(t, e.StateDir)[0].Checks); diff != "" {
		t.Errorf("revision checks (-want +got):\n%s", diff)
	}
	var kinds []progress.Kind
	for _, x := range ev.all {
		if x.Kind == progress.CheckStarted || x.Kind == progress.CheckFinished {
			kinds = append(kinds, x.Kind)
			if x.Check == "" || x.What != "http" {
				t.Errorf("check event %+v does not name the check and its kind", x)
			}
		}
	}
	if len(kinds) != 4 {
		t.Errorf("check events = %v, want started and finished for each", kinds)
	}
}

// A failing check fails the run after every check ran: no revision, the
// run resumable, and a resume runs the checks again and finishes once
// they pass.
func TestAFailingCheckFailsTheRunAndResumeRunsItAgain(t *testing.T) {
	c := newFakeCluster()
	var passRuns, failRuns int
	e := newEngine(t, c, Options{Checks: []Check{fixedCheck("bad", false, &failRuns), fixedCheck("good", true, &passRuns)}})
	in := creates(t, "a")
	res, err := e.Apply(t.Context(), "run-1", in)
	var cf *ChecksFailedError
	if !errors.As(err, &cf) || len(cf.Failed) != 1 || cf.Failed[0].Name != "bad" {
		t.Fatalf("Apply() error = %v, want a *ChecksFailedError naming bad", err)
	}
	if want := `check "bad": exit status 1`; err.Error() != want {
		t.Errorf("Apply() error = %q, want %q", err, want)
	}
	if res.Status != journal.StatusFailed || passRuns != 1 || failRuns != 1 {
		t.Errorf("Apply() = %+v after %d/%d runs of the checks; want failed after running both once", res, failRuns, passRuns)
	}
	if revs := revisions(t, e.StateDir); len(revs) != 0 {
		t.Errorf("a run whose check failed became revision %d", revs[0].Number)
	}

	e.Options.Checks = []Check{fixedCheck("bad", true, &failRuns), fixedCheck("good", true, &passRuns)}
	res, err = e.Resume(t.Context(), "run-1", in)
	if err != nil || res.Status != journal.StatusFinished || res.Revision != 1 {
		t.Fatalf("Resume() = %+v, %v; want finished as revision 1", res, err)
	}
	if passRuns != 2 || failRuns != 2 {
		t.Errorf("checks ran %d/%d times, want twice each", failRuns, passRuns)
	}
	recs, _ := replayRun(t, e.StateDir, "run-1")
	if n := len(c.sent("patch", "a")); n != 1 {
		t.Errorf("a was written %d times, want once (resume writes nothing again)", n)
	}
	if got := story(recs); got[len(got)-1] != "run-finished" {
		t.Errorf("journal ends %v, want run-finished", got[len(got)-3:])
	}
}

// With compensation a failing check undoes the run's writes.
func TestAFailingCheckCompensates(t *testing.T) {
	c := newFakeCluster()
	var runs int
	e := newEngine(t, c, Options{Compensate: true, Checks: []Check{fixedCheck("bad", false, &runs)}})
	res, err := e.Apply(t.Context(), "run-1", creates(t, "a"))
	var cf *ChecksFailedError
	if !errors.As(err, &cf) || res.Status != journal.StatusCompensated {
		t.Fatalf("Apply() = %+v, %v; want compensated after the check failed", res, err)
	}
	if c.configMap("a") != nil {
		t.Errorf("a is still in the cluster after the run compensated")
	}
}

// Skipped checks do not run, and the journal and the revision say why.
func TestSkippedChecksAreRecorded(t *testing.T) {
	c := newFakeCluster()
	var runs int
	e := newEngine(t, c, Options{SkipChecks: "--skip-checks", Checks: []Check{fixedCheck("bad", false, &runs)}})
	res, err := e.Apply(t.Context(), "run-1", creates(t, "a"))
	if err != nil || runs != 0 {
		t.Fatalf("Apply() = %+v, %v after %d check runs; want finished without running the check", res, err, runs)
	}
	_, st := replayRun(t, e.StateDir, "run-1")
	if !st.ChecksSkipped {
		t.Errorf("the journal does not say the checks were skipped")
	}
	if got := revisions(t, e.StateDir)[0].Checks; got == nil || !got.Skipped || got.Reason != "--skip-checks" {
		t.Errorf("revision checks = %+v, want skipped because of --skip-checks", got)
	}
}

// A stop asked for while a check runs ends the run stopped before the next.
func TestStopBetweenChecks(t *testing.T) {
	c := newFakeCluster()
	stop := make(chan struct{})
	var second int
	first := Check{Name: "first", Kind: "tcp", Run: func(context.Context) journal.Check {
		close(stop)
		return journal.Check{Passed: true}
	}}
	e := newEngine(t, c, Options{Stop: stop, Checks: []Check{first, fixedCheck("second", true, &second)}})
	res, err := e.Apply(t.Context(), "run-1", creates(t, "a"))
	if !errors.Is(err, ErrStopped) || res.Status != journal.StatusStopped || second != 0 {
		t.Fatalf("Apply() = %+v, %v, second ran %d times; want stopped before the second check", res, err, second)
	}
}
