package journal

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Shorthands for building journals in tables.
func started() Record {
	return Record{Type: RunStarted, Run: "run-1", Plan: "sha256:abc", Holder: "ana@box 42"}
}
func intent(step int) Record {
	return Record{Type: Intent, Step: step, Action: "create", Ref: web}
}
func outcome(step int, res Result) Record {
	return Record{Type: Outcome, Step: step, Result: res, UID: "u-1", ResourceVersion: "7"}
}
func settled(step int, res Result) Record {
	return Record{Type: Settled, Step: step, Result: res, UID: "u-2", ResourceVersion: "9"}
}
func runRecord(typ Type) Record { return Record{Type: typ} }
func resumed() Record           { return Record{Type: Resumed, Run: "run-1", Holder: "bo@box 77"} }

var (
	inDoubt  = StepState{Status: StepInDoubt, Action: "create", Ref: *web, Intents: 1}
	applied  = StepState{Status: StepApplied, Action: "create", Ref: *web, UID: "u-1", ResourceVersion: "7", Intents: 1}
	baseline = State{Run: "run-1", Plan: "sha256:abc", Holder: "ana@box 42", Status: StatusRunning}
)

// state returns baseline with steps and edits applied.
func state(steps map[int]StepState, edit func(*State)) State {
	s := baseline
	s.Steps = steps
	if s.Steps == nil {
		s.Steps = map[int]StepState{}
	}
	if edit != nil {
		edit(&s)
	}
	return s
}

func TestReplay(t *testing.T) {
	tests := []struct {
		name string
		recs []Record
		want State
	}{
		{"a clean run finishes with every step applied",
			[]Record{started(), {Type: WaveReady, Wave: 0}, intent(0), intent(1), outcome(0, ResultApplied), outcome(1, ResultApplied), {Type: WaveReady, Wave: 1}, runRecord(RunFinished)},
			state(map[int]StepState{0: applied, 1: applied}, func(s *State) { s.Status, s.WavesReady = StatusFinished, 2 })},
		{"an interrupted run leaves the step with an intent in doubt",
			[]Record{started(), intent(0), outcome(0, ResultApplied), intent(1)},
			state(map[int]StepState{0: applied, 1: inDoubt}, nil)},
		{"settling as applied marks the step applied with what the cluster showed",
			[]Record{started(), intent(0), resumed(), settled(0, ResultApplied)},
			state(map[int]StepState{0: {Status: StepApplied, Action: "create", Ref: *web, UID: "u-2", ResourceVersion: "9", Intents: 1}},
				func(s *State) { s.Holder = "bo@box 77" })},
		{"settling as not applied makes the step pending, and its next intent counts twice",
			[]Record{started(), intent(0), resumed(), settled(0, ResultNotApplied), intent(0), outcome(0, ResultApplied)},
			state(map[int]StepState{0: {Status: StepApplied, Action: "create", Ref: *web, UID: "u-1", ResourceVersion: "7", Intents: 2}},
				func(s *State) { s.Holder = "bo@box 77" })},
		{"a skipped outcome leaves the step pending",
			[]Record{started(), intent(0), outcome(0, ResultSkipped)},
			state(map[int]StepState{0: {Status: StepPending, Action: "create", Ref: *web, Intents: 1}}, nil)},
		{"a stop request then run-stopped ends the run stopped",
			[]Record{started(), intent(0), outcome(0, ResultApplied), {Type: StopRequested, Holder: "bo@box 77"}, runRecord(RunStopped)},
			state(map[int]StepState{0: applied}, func(s *State) { s.Status, s.StopRequested = StatusStopped, true })},
		{"resuming a stopped run clears the stop request and makes it running",
			[]Record{started(), runRecord(StopRequested), runRecord(RunStopped), resumed()},
			state(nil, func(s *State) { s.Holder = "bo@box 77" })},
		{"a failed step is failed with its error, and the run failed",
			[]Record{started(), intent(0), {Type: Outcome, Step: 0, Result: ResultFailed, Error: "conflict"}, {Type: RunFailed, Error: "step 0 failed"}},
			state(map[int]StepState{0: {Status: StepFailed, Action: "create", Ref: *web, Error: "conflict", Intents: 1}},
				func(s *State) { s.Status, s.Error = StatusFailed, "step 0 failed" })},
		{"a failed step may be written again after a resume",
			[]Record{started(), intent(0), {Type: Outcome, Step: 0, Result: ResultFailed, Error: "conflict"}, runRecord(RunFailed), resumed(), intent(0)},
			state(map[int]StepState{0: {Status: StepInDoubt, Action: "create", Ref: *web, Intents: 2}}, func(s *State) { s.Holder = "bo@box 77" })},
		{"compensation undoes the applied steps and ends the run compensated",
			[]Record{started(), intent(0), outcome(0, ResultApplied), intent(1), {Type: Outcome, Step: 1, Result: ResultFailed, Error: "boom"},
				{Type: RunFailed, Error: "boom"}, runRecord(CompensateStarted), {Type: CompensateIntent, Step: 0, Action: "delete"},
				{Type: CompensateOutcome, Step: 0, Result: ResultApplied}, runRecord(Compensated)},
			state(map[int]StepState{
				0: {Status: StepCompensated, Action: "create", Ref: *web, UID: "u-1", ResourceVersion: "7", Intents: 1},
				1: {Status: StepFailed, Action: "create", Ref: *web, Error: "boom", Intents: 1},
			}, func(s *State) { s.Status, s.Error = StatusCompensated, "boom" })},
		{"an interrupted compensation leaves the step compensating",
			[]Record{started(), intent(0), outcome(0, ResultApplied), runRecord(RunFailed), runRecord(CompensateStarted), {Type: CompensateIntent, Step: 0}},
			state(map[int]StepState{0: {Status: StepCompensating, Action: "create", Ref: *web, UID: "u-1", ResourceVersion: "7", Intents: 1}},
				func(s *State) { s.Status, s.Compensating = StatusFailed, true })},
		{"a failed compensation leaves the step applied with the error",
			[]Record{started(), intent(0), outcome(0, ResultApplied), runRecord(CompensateStarted), {Type: CompensateIntent, Step: 0},
				{Type: CompensateOutcome, Step: 0, Result: ResultFailed, Error: "changed by kubectl"}},
			state(map[int]StepState{0: {Status: StepApplied, Action: "create", Ref: *web, UID: "u-1", ResourceVersion: "7", Error: "changed by kubectl", Intents: 1}},
				func(s *State) { s.Compensating = true })},
		{"wave-ready records set WavesReady one past the highest",
			[]Record{started(), {Type: WaveReady, Wave: 2}, {Type: WaveReady, Wave: 0}},
			state(nil, func(s *State) { s.WavesReady = 3 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replay(numbered(tt.recs))
			if err != nil {
				t.Fatalf("Replay = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Replay mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplayRefusesInconsistentJournals(t *testing.T) {
	gap := numbered([]Record{started(), intent(0), outcome(0, ResultApplied)})
	gap[2].Seq = 4
	tests := []struct {
		name string
		recs []Record
		want error
	}{
		{"an empty journal", nil, ErrEmpty},
		{"a gap in sequence numbers", gap, ErrInconsistent},
		{"an outcome without an intent", numbered([]Record{started(), outcome(0, ResultApplied)}), ErrInconsistent},
		{"a first record that is not run-started", numbered([]Record{intent(0)}), ErrInconsistent},
		{"a second run-started", numbered([]Record{started(), started()}), ErrInconsistent},
		{"a second intent while the step is in doubt", numbered([]Record{started(), intent(0), intent(0)}), ErrInconsistent},
		{"an intent for an applied step", numbered([]Record{started(), intent(0), outcome(0, ResultApplied), intent(0)}), ErrInconsistent},
		{"settling a step that is not in doubt", numbered([]Record{started(), settled(0, ResultApplied)}), ErrInconsistent},
		{"an unknown record type", numbered([]Record{started(), {Type: "bogus"}}), ErrInconsistent},
		{"an unknown outcome result", numbered([]Record{started(), intent(0), outcome(0, "maybe")}), ErrInconsistent},
		{"a settlement as skipped", numbered([]Record{started(), intent(0), settled(0, ResultSkipped)}), ErrInconsistent},
		{"compensating a step never applied", numbered([]Record{started(), {Type: CompensateIntent, Step: 0}}), ErrInconsistent},
		{"a compensation outcome without its intent", numbered([]Record{started(), intent(0), outcome(0, ResultApplied), {Type: CompensateOutcome, Step: 0, Result: ResultApplied}}), ErrInconsistent},
		{"a step record with a negative step", numbered([]Record{started(), intent(NoStep)}), ErrInconsistent},
		{"a resume naming another run", numbered([]Record{started(), {Type: Resumed, Run: "run-2"}}), ErrInconsistent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Replay(tt.recs); !errors.Is(err, tt.want) {
				t.Errorf("Replay = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReplayErrorNamesTheRecord(t *testing.T) {
	_, err := Replay(numbered([]Record{started(), outcome(3, ResultApplied)}))
	want := "inconsistent journal: record 2 (outcome): step 3: outcome without an intent (step is pending)"
	if err == nil || err.Error() != want {
		t.Errorf("Replay = %v, want %q", err, want)
	}
}

func TestStateHelpers(t *testing.T) {
	s := state(map[int]StepState{
		4: inDoubt,
		0: applied,
		2: inDoubt,
		3: {Status: StepPending},
		5: {Status: StepFailed},
		6: {Status: StepCompensating},
	}, nil)
	if diff := cmp.Diff([]int{2, 4}, s.InDoubt()); diff != "" {
		t.Errorf("InDoubt() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 3, 7}, s.Pending(8)); diff != "" {
		t.Errorf("Pending(8) mismatch (-want +got):\n%s", diff)
	}
	for i, want := range map[int]bool{0: true, 1: false, 2: false, 5: false, 6: false} {
		if got := s.Done(i); got != want {
			t.Errorf("Done(%d) = %v, want %v", i, got, want)
		}
	}
}
