package apply

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/journal"
)

// A run never writes an object its approved plan did not seal: a resume
// whose journal was edited to put an untouched step in doubt (so the
// approval check skips it) and whose object to write is not the one the
// plan sealed (a composition changed since, or forged) is refused before
// anything is journaled or written; so is a new run given such an object.
func TestSecurityResumeWritesOnlyWhatThePlanSealed(t *testing.T) {
	for _, tt := range []struct {
		name    string
		prepare func(e *Engine, in Input) // the state directory before the run
		start   func(e *Engine, in Input) error
	}{
		{name: "a resume with a step put in doubt by hand", prepare: func(e *Engine, in Input) {
			interrupted(t, e.StateDir, "run-1",
				journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: in.Plan.Hash},
				journal.Record{Type: journal.Intent, Step: 1, Action: "create", Ref: &in.Plan.Steps[1].Ref}, // edited in
			)
		}, start: func(e *Engine, in Input) error {
			_, err := e.Resume(t.Context(), "run-1", in)
			return err
		}},
		{name: "a new run", prepare: func(*Engine, Input) {}, start: func(e *Engine, in Input) error {
			_, err := e.Apply(t.Context(), "run-2", in)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			in := creates(t, "a", "b")
			in.Desired[in.Plan.Steps[1].Ref] = configMap("b", "forged")
			tt.prepare(e, in)
			before := journalBytes(t, e.StateDir, "run-1")

			err := tt.start(e, in)
			if !errors.Is(err, ErrNotApproved) || !strings.Contains(err.Error(), "ConfigMap/"+testNamespace+"/b") {
				t.Fatalf("run = %v, want ErrNotApproved naming ConfigMap b", err)
			}
			if n := writes(c.sent("patch", "a")) + writes(c.sent("patch", "b")); n != 0 {
				t.Errorf("%d writes sent, want none", n)
			}
			if after := journalBytes(t, e.StateDir, "run-1"); after != before {
				t.Errorf("the journal changed: %q, was %q", after, before)
			}
			if _, err := os.Stat(RunDir(e.StateDir, "run-2")); err == nil {
				t.Errorf("a refused new run left a run directory")
			}
		})
	}
}

// A resume continues only the run and plan its journal's start was sealed
// for: a journal edited to name another stored plan (one no one approved
// for this run), or one whose start carries no seal, is refused before
// anything is journaled or written.
func TestSecurityResumeRunsOnlyThePlanItsRunWasApprovedFor(t *testing.T) {
	for _, tt := range []struct {
		name string
		seal func(in Input) string
	}{
		{name: "a journal edited to name another plan", seal: func(Input) string { return runSeal(testKey, "run-1", "sha256:"+strings.Repeat("0", 64)) }},
		{name: "a journal without a seal", seal: func(Input) string { return "" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			in := creates(t, "a", "b")
			writeJournal(t, e.StateDir, "run-1",
				journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: in.Plan.Hash, Seal: tt.seal(in)},
				journal.Record{Type: journal.Intent, Step: 0, Action: "create", Ref: &in.Plan.Steps[0].Ref},
			)
			before := journalBytes(t, e.StateDir, "run-1")
			_, err := e.Resume(t.Context(), "run-1", in)
			if !errors.Is(err, ErrNotApproved) || !strings.Contains(err.Error(), "does not carry the seal of run run-1") {
				t.Fatalf("Resume() = %v, want ErrNotApproved saying the start is not sealed", err)
			}
			if n := writes(c.sent("patch", "a")) + writes(c.sent("patch", "b")); n != 0 {
				t.Errorf("%d writes sent, want none", n)
			}
			if after := journalBytes(t, e.StateDir, "run-1"); after != before {
				t.Errorf("the journal changed")
			}
		})
	}
}

// journalBytes is the content of run's journal, or "" when there is none.
func journalBytes(t *testing.T, stateDir, run string) string {
	t.Helper()
	data, _ := os.ReadFile(JournalPath(stateDir, run))
	return string(data)
}
