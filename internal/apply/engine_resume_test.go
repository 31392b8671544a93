package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
)

// Plan hashes for the pure tests; only their short forms are printed.
const (
	hashA = "sha256:aaaaaaaaaaaa0000000000000000000000000000000000000000000000000000"
	hashB = "sha256:bbbbbbbbbbbb0000000000000000000000000000000000000000000000000000"
)

// Records of a journal, for the pure tests.
var (
	started = journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: hashA}
	ref0    = object.Ref{Kind: "ConfigMap", Namespace: testNamespace, Name: "a"}
)

func intent(step int) journal.Record {
	return journal.Record{Type: journal.Intent, Step: step, Action: "create", Ref: &ref0}
}

func outcome(step int, result journal.Result) journal.Record {
	return journal.Record{Type: journal.Outcome, Step: step, Result: result, UID: "uid-" + string(result)}
}

func record(typ journal.Type, step int, result journal.Result) journal.Record {
	return journal.Record{Type: typ, Step: step, Result: result}
}

func TestResumable(t *testing.T) {
	tests := []struct {
		name       string
		recs       []journal.Record
		hash       string
		wantStatus journal.RunStatus
		wantErr    string // a substring; empty: no error
		wantIs     error
	}{
		{
			name: "a run of another plan is refused",
			recs: numbered(started), hash: hashB, wantStatus: journal.StatusRunning,
			wantErr: "the run applies plan aaaaaaaaaaaa, not bbbbbbbbbbbb",
		},
		{
			name: "a finished run has nothing to resume",
			recs: numbered(started, intent(0), outcome(0, journal.ResultApplied), record(journal.RunFinished, 0, "")), hash: hashA,
			wantStatus: journal.StatusFinished, wantErr: "nothing to resume: the run ended finished",
		},
		{
			name: "a compensated run has nothing to resume",
			recs: numbered(started, intent(0), outcome(0, journal.ResultApplied), intent(1), outcome(1, journal.ResultFailed),
				record(journal.CompensateStarted, 0, ""), record(journal.CompensateIntent, 0, ""), record(journal.CompensateOutcome, 0, journal.ResultApplied),
				record(journal.Compensated, 0, "")),
			hash: hashA, wantStatus: journal.StatusCompensated, wantErr: "nothing to resume: the run ended compensated",
		},
		{
			name: "an interrupted run resumes",
			recs: numbered(started, intent(0)), hash: hashA, wantStatus: journal.StatusRunning,
		},
		{
			name: "an interrupted compensation resumes",
			recs: numbered(started, intent(0), outcome(0, journal.ResultApplied), record(journal.CompensateStarted, 0, ""), record(journal.CompensateIntent, 0, "")),
			hash: hashA, wantStatus: journal.StatusRunning,
		},
		{
			name: "a stopped run resumes",
			recs: numbered(started, record(journal.StopRequested, 0, ""), record(journal.RunStopped, 0, "")), hash: hashA,
			wantStatus: journal.StatusStopped,
		},
		{
			name: "a failed run resumes",
			recs: numbered(started, intent(0), outcome(0, journal.ResultFailed), record(journal.RunFailed, 0, "")), hash: hashA,
			wantStatus: journal.StatusFailed,
		},
		{
			name: "a run failed and resumed before resumes again",
			recs: numbered(started, record(journal.RunFailed, 0, ""), journal.Record{Type: journal.Resumed, Run: "run-1"}), hash: hashA,
			wantStatus: journal.StatusRunning,
		},
		{
			name: "an empty journal is refused",
			recs: nil, hash: hashA, wantIs: journal.ErrEmpty,
		},
		{
			name: "a journal no run writes is refused",
			recs: numbered(started, outcome(0, journal.ResultApplied)), hash: hashA, wantIs: journal.ErrInconsistent,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := resumable(tt.recs, tt.hash)
			switch {
			case tt.wantIs != nil:
				if !errors.Is(err, tt.wantIs) {
					t.Fatalf("resumable() = %v, want %v", err, tt.wantIs)
				}
				return
			case tt.wantErr == "" && err != nil:
				t.Fatalf("resumable() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("resumable() = %v, want %q", err, tt.wantErr)
			}
			if st.Status != tt.wantStatus {
				t.Errorf("resumable() status = %s, want %s", st.Status, tt.wantStatus)
			}
		})
	}
}

// TestWhatAResumeRereads checks which steps a resume settles by reading the
// cluster (State.InDoubt) and which its approval check compares with a
// fresh plan (Untouched), for each state a step's journal can leave it in.
func TestWhatAResumeRereads(t *testing.T) {
	tests := []struct {
		name          string
		recs          []journal.Record // after run-started, about step 0 of creates(a, b)
		wantInDoubt   []int
		wantUntouched []string
	}{
		{name: "a step never written is untouched", wantUntouched: []string{"a", "b"}},
		{name: "an intent without an outcome is in doubt, not untouched", recs: []journal.Record{intent(0)}, wantInDoubt: []int{0}, wantUntouched: []string{"b"}},
		{name: "an applied step is neither", recs: []journal.Record{intent(0), outcome(0, journal.ResultApplied)}, wantUntouched: []string{"b"}},
		{name: "a failed step is neither: it was tried", recs: []journal.Record{intent(0), outcome(0, journal.ResultFailed)}, wantUntouched: []string{"b"}},
		{name: "a skipped write leaves the step untouched", recs: []journal.Record{intent(0), outcome(0, journal.ResultSkipped)}, wantUntouched: []string{"a", "b"}},
		{
			name: "a step settled as not applied is untouched again",
			recs: []journal.Record{intent(0), record(journal.Settled, 0, journal.ResultNotApplied)}, wantUntouched: []string{"a", "b"},
		},
		{
			name: "a step settled as applied is neither",
			recs: []journal.Record{intent(0), record(journal.Settled, 0, journal.ResultApplied)}, wantUntouched: []string{"b"},
		},
		{
			name:          "an undo in flight is not in doubt: compensation redoes it",
			recs:          []journal.Record{intent(0), outcome(0, journal.ResultApplied), record(journal.CompensateStarted, 0, ""), record(journal.CompensateIntent, 0, "")},
			wantUntouched: []string{"b"},
		},
	}
	in := creates(t, "a", "b")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := journal.Replay(numbered(append([]journal.Record{started}, tt.recs...)...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantInDoubt, st.InDoubt()); diff != "" {
				t.Errorf("InDoubt() (-want +got):\n%s", diff)
			}
			want := map[object.Ref]bool{}
			for _, n := range tt.wantUntouched {
				want[object.Ref{Kind: "ConfigMap", Namespace: testNamespace, Name: n}] = true
			}
			if diff := cmp.Diff(want, Untouched(in.Plan, st)); diff != "" {
				t.Errorf("Untouched() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResumeFinishesAFailedOrStoppedRun ends a run early, resumes it, and
// checks that the resume wrote only what was left.
func TestResumeFinishesAFailedOrStoppedRun(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(c *fakeCluster, e *Engine)
		after   func(t *testing.T, e *Engine) // after the first run ended
		first   journal.RunStatus
		want    []string // the journal after the first run's end
	}{
		{
			name: "a failed run writes its failed step again and goes on",
			arrange: func(c *fakeCluster, e *Engine) {
				c.answerTimes("patch", "b", 1, func(clienttesting.Action) error { return errRefused })
			},
			first: journal.StatusFailed,
			want: []string{
				"run-failed", "resumed",
				"intent 1 create", "outcome 1 applied", "wave-ready 1",
				"intent 2 create", "outcome 2 applied", "wave-ready 2", "run-finished",
			},
		},
		{
			name: "a stop request left from before the resume does not stop it",
			arrange: func(c *fakeCluster, e *Engine) {
				c.answerTimes("patch", "b", 1, func(clienttesting.Action) error { return errRefused })
			},
			after: func(t *testing.T, e *Engine) {
				if err := RequestStop(e.StateDir, "run-1", "someone"); err != nil {
					t.Fatal(err)
				}
			},
			first: journal.StatusFailed,
			want: []string{
				"run-failed", "resumed",
				"intent 1 create", "outcome 1 applied", "wave-ready 1",
				"intent 2 create", "outcome 2 applied", "wave-ready 2", "run-finished",
			},
		},
		{
			name: "a stopped run starts at the first wave not ready",
			arrange: func(c *fakeCluster, e *Engine) {
				e.Options.AfterWave = stopAt(e, 0)
			},
			first: journal.StatusStopped,
			want: []string{
				"run-stopped", "resumed",
				"intent 1 create", "outcome 1 applied", "wave-ready 1",
				"intent 2 create", "outcome 2 applied", "wave-ready 2", "run-finished",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			tt.arrange(c, e)
			in := creates(t, "a", "b", "c")
			res, err := e.Apply(t.Context(), "run-1", in)
			if err == nil || res.Status != tt.first {
				t.Fatalf("Apply() = %+v, %v; want %s with an error", res, err, tt.first)
			}
			before, _ := replayRun(t, e.StateDir, "run-1")
			if tt.after != nil {
				tt.after(t, e)
			}

			res, err = e.Resume(t.Context(), "run-1", in)
			if err != nil {
				t.Fatalf("Resume() = %v, want nil", err)
			}
			if diff := cmp.Diff(&Result{Run: "run-1", Status: journal.StatusFinished, Revision: 1}, res); diff != "" {
				t.Errorf("Resume() result (-want +got):\n%s", diff)
			}
			recs, st := replayRun(t, e.StateDir, "run-1")
			if diff := cmp.Diff(tt.want, story(recs[len(before)-1:])); diff != "" {
				t.Errorf("journal from the first run's end (-want +got):\n%s", diff)
			}
			if st.Status != journal.StatusFinished {
				t.Errorf("Replay() status = %s, want finished", st.Status)
			}
			if n := len(c.sent("patch", "a")); n != 1 {
				t.Errorf("%d writes of a sent, want 1: an applied step is never written again", n)
			}
		})
	}
}

// errRefused is a server's definite refusal of a write: nothing was
// written. (A 5xx answer is not one: the engine settles it by reading.)
var errRefused = apierrors.NewForbidden(configMapsKind, "b", errors.New("admission webhook denied the request"))

// stopAt returns an AfterWave hook that asks e's run to stop once wave n
// is ready, as "piceli release stop" does from another process.
func stopAt(e *Engine, n int) func(ctx context.Context, wave int) error {
	return func(ctx context.Context, wave int) error {
		if wave != n {
			return nil
		}
		return RequestStop(e.StateDir, "run-1", "test")
	}
}

// TestResumeSettlesAnInDoubtStep resumes a run that died between a write
// and its outcome, with the write landed or not, and checks the step is
// settled by reading the cluster and written only when it had not landed.
func TestResumeSettlesAnInDoubtStep(t *testing.T) {
	tests := []struct {
		name      string
		landed    bool
		want      []string // the journal from the resume on
		wantWrite int      // writes of b the resume sends, dry-runs aside
	}{
		{
			name: "a write that landed is settled applied and not sent again", landed: true,
			want:      []string{"resumed", "settled 1 applied", "wave-ready 1", "intent 2 create", "outcome 2 applied", "wave-ready 2", "run-finished"},
			wantWrite: 0,
		},
		{
			name: "a write that never landed is settled not applied and sent", landed: false,
			want:      []string{"resumed", "settled 1 not-applied", "intent 1 create", "outcome 1 applied", "wave-ready 1", "intent 2 create", "outcome 2 applied", "wave-ready 2", "run-finished"},
			wantWrite: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			in := creates(t, "a", "b", "c")
			a := c.seed(t, in.Desired[in.Plan.Steps[0].Ref], testManager)
			if tt.landed {
				c.seed(t, in.Desired[in.Plan.Steps[1].Ref], testManager)
			}
			interrupted(t, e.StateDir, "run-1",
				journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: in.Plan.Hash},
				journal.Record{Type: journal.Intent, Step: 0, Action: "create", Ref: &in.Plan.Steps[0].Ref},
				journal.Record{Type: journal.Outcome, Step: 0, Result: journal.ResultApplied, UID: string(a.GetUID()), ResourceVersion: a.GetResourceVersion()},
				journal.Record{Type: journal.WaveReady, Wave: 0},
				journal.Record{Type: journal.Intent, Step: 1, Action: "create", Ref: &in.Plan.Steps[1].Ref},
			)

			res, err := e.Resume(t.Context(), "run-1", in)
			if err != nil || res.Status != journal.StatusFinished {
				t.Fatalf("Resume() = %+v, %v; want finished", res, err)
			}
			recs, _ := replayRun(t, e.StateDir, "run-1")
			if diff := cmp.Diff(tt.want, story(recs[5:])); diff != "" {
				t.Errorf("journal from the resume on (-want +got):\n%s", diff)
			}
			if got := writes(c.sent("patch", "b")); got != tt.wantWrite {
				t.Errorf("%d writes of b sent, want %d", got, tt.wantWrite)
			}
			if got := writes(c.sent("patch", "a")); got != 0 {
				t.Errorf("%d writes of a sent, want none: it was applied", got)
			}
		})
	}
}

// interrupted writes the journal of a run that died after recs. A
// run-started record without a seal is sealed as the engine seals it, with
// the tests' key.
func interrupted(t *testing.T, stateDir, run string, recs ...journal.Record) {
	t.Helper()
	for i, r := range recs {
		if r.Type == journal.RunStarted && r.Seal == "" {
			recs[i].Seal = runSeal(testKey, r.Run, r.Plan)
		}
	}
	writeJournal(t, stateDir, run, recs...)
}

// writeJournal writes the journal of run as recs, as they are.
func writeJournal(t *testing.T, stateDir, run string, recs ...journal.Record) {
	t.Helper()
	if err := createRun(stateDir, run, SourceApply); err != nil {
		t.Fatal(err)
	}
	w, err := journal.Create(JournalPath(stateDir, run), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(recs...); err != nil {
		t.Fatal(err)
	}
}

// writes counts the patches that are not dry-runs.
func writes(patches []clienttesting.Action) int {
	n := 0
	for _, a := range patches {
		if p, ok := a.(clienttesting.PatchActionImpl); ok && len(p.PatchOptions.DryRun) == 0 {
			n++
		}
	}
	return n
}

// TestResumeRefusesAnEndedOrForeignRun checks the refusals leave the
// journal as it was.
func TestResumeRefusesAnEndedOrForeignRun(t *testing.T) {
	tests := []struct {
		name    string
		fail    bool     // the first run fails at b
		resume  []string // the plan the resume is given
		wantErr string
	}{
		{name: "a finished run is not resumed", resume: []string{"a", "b"}, wantErr: "nothing to resume: the run ended finished"},
		{name: "a failed run is not resumed with another plan", fail: true, resume: []string{"a", "c"}, wantErr: "the run applies plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			if tt.fail {
				c.failOn("patch", "b", errRefused)
			}
			e := newEngine(t, c, Options{})
			if _, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b")); (err != nil) != tt.fail {
				t.Fatalf("Apply() = %v, want an error: %v", err, tt.fail)
			}
			before, _ := replayRun(t, e.StateDir, "run-1")
			sent := len(c.Actions())

			res, err := e.Resume(t.Context(), "run-1", creates(t, tt.resume...))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || res != nil {
				t.Fatalf("Resume() = %+v, %v; want no result and %q", res, err, tt.wantErr)
			}
			after, _ := replayRun(t, e.StateDir, "run-1")
			if diff := cmp.Diff(story(before), story(after)); diff != "" {
				t.Errorf("journal changed by a refused resume (-before +after):\n%s", diff)
			}
			if n := len(c.Actions()) - sent; n != 0 {
				t.Errorf("a refused resume sent %d requests, want none", n)
			}
		})
	}
}
