package journal

import (
	"errors"
	"fmt"
)

// ErrEmpty is returned by Replay for a journal without records: the run
// was created but never started, so nothing was written to the cluster.
var ErrEmpty = errors.New("empty journal: no run-started record")

// ErrInconsistent is wrapped by every Replay error about records that no
// correct run writes: a gap in Seq, a RunStarted that is not first, an
// outcome without an intent, a second intent for a step in doubt or
// applied, and the like.
var ErrInconsistent = errors.New("inconsistent journal")

// Replay folds records, as Read or OpenAppend return them, into the state
// of the run. It is pure: deterministic, no I/O, records not modified.
func Replay(recs []Record) (State, error) {
	if len(recs) == 0 {
		return State{}, ErrEmpty
	}
	s := State{Steps: map[int]StepState{}}
	for i, r := range recs {
		if err := s.apply(r, int64(i)+1); err != nil {
			return State{}, fmt.Errorf("%w: record %d (%s): %v", ErrInconsistent, i+1, r.Type, err)
		}
	}
	return s, nil
}

// apply folds r, expected to be record number seq, into s.
func (s *State) apply(r Record, seq int64) error {
	if err := check(r, seq); err != nil {
		return err
	}
	if r.Type.stepScoped() {
		return s.applyStep(r)
	}
	return s.applyRun(r)
}

// check enforces what any record must satisfy at its position.
func check(r Record, seq int64) error {
	switch {
	case r.Seq != seq:
		return fmt.Errorf("sequence number %d, want %d", r.Seq, seq)
	case !r.Type.known():
		return errors.New("unknown record type")
	case seq == 1 && r.Type != RunStarted:
		return errors.New("the first record must be run-started")
	case seq > 1 && r.Type == RunStarted:
		return errors.New("run-started after the first record")
	case r.Type.stepScoped() && r.Step < 0:
		return fmt.Errorf("step %d is not a plan index", r.Step)
	}
	return nil
}

// applyRun folds a record that is about the run, not a step.
func (s *State) applyRun(r Record) error {
	switch r.Type {
	case RunStarted:
		s.Run, s.Plan, s.Holder, s.Status = r.Run, r.Plan, r.Holder, StatusRunning
	case WaveReady:
		s.WavesReady = max(s.WavesReady, r.Wave+1)
	case StopRequested:
		s.StopRequested = true
	case RunStopped:
		s.Status = StatusStopped
	case RunFinished:
		s.Status = StatusFinished
	case RunFailed:
		s.Status, s.Error = StatusFailed, r.Error
	case CompensateStarted:
		s.Compensating = true
	case Compensated:
		s.Status, s.Compensating = StatusCompensated, false
	case Resumed:
		return s.resume(r)
	case ChecksSkipped, CheckStarted, CheckFinished:
		s.applyCheck(r)
	}
	return nil
}

// resume hands the run to a new holder and makes it running again.
func (s *State) resume(r Record) error {
	if r.Run != "" && r.Run != s.Run {
		return fmt.Errorf("resumes run %q in the journal of run %q", r.Run, s.Run)
	}
	s.Status, s.Holder, s.Error, s.StopRequested = StatusRunning, r.Holder, "", false
	s.Checks, s.ChecksSkipped = nil, false
	return nil
}

// applyStep folds a record about one step.
func (s *State) applyStep(r Record) error {
	st, ok := s.Steps[r.Step]
	if !ok {
		st.Status = StepPending
	}
	next, err := st.next(r)
	if err != nil {
		return fmt.Errorf("step %d: %w", r.Step, err)
	}
	s.Steps[r.Step] = next
	return nil
}

// next is the step transition function.
func (st StepState) next(r Record) (StepState, error) {
	switch r.Type {
	case Intent:
		return st.intent(r)
	case Outcome:
		return st.outcome(r)
	case Settled:
		return st.settle(r)
	case CompensateIntent:
		return st.compensateIntent(r)
	default: // CompensateOutcome
		return st.compensateOutcome(r)
	}
}

func (st StepState) intent(r Record) (StepState, error) {
	if st.Status != StepPending && st.Status != StepFailed {
		return st, fmt.Errorf("intent for a step that is %s", st.Status)
	}
	st.Status, st.Action, st.Error = StepInDoubt, r.Action, ""
	if r.Ref != nil {
		st.Ref = *r.Ref
	}
	st.Intents++
	return st, nil
}

func (st StepState) outcome(r Record) (StepState, error) {
	if st.Status != StepInDoubt {
		return st, fmt.Errorf("outcome without an intent (step is %s)", st.Status)
	}
	switch r.Result {
	case ResultApplied:
		return st.applied(r), nil
	case ResultFailed:
		st.Status, st.Error = StepFailed, r.Error
	case ResultSkipped:
		st.Status = StepPending
	default:
		return st, fmt.Errorf("outcome result %q", r.Result)
	}
	return st, nil
}

func (st StepState) settle(r Record) (StepState, error) {
	if st.Status != StepInDoubt {
		return st, fmt.Errorf("settlement of a step that is %s, not in doubt", st.Status)
	}
	switch r.Result {
	case ResultApplied:
		return st.applied(r), nil
	case ResultNotApplied:
		st.Status = StepPending
	default:
		return st, fmt.Errorf("settlement result %q", r.Result)
	}
	return st, nil
}

func (st StepState) applied(r Record) StepState {
	st.Status, st.UID, st.ResourceVersion, st.Error = StepApplied, r.UID, r.ResourceVersion, ""
	return st
}

func (st StepState) compensateIntent(r Record) (StepState, error) {
	if st.Status != StepApplied {
		return st, fmt.Errorf("compensation intent for a step that is %s, not applied", st.Status)
	}
	st.Status, st.Error = StepCompensating, ""
	return st, nil
}

func (st StepState) compensateOutcome(r Record) (StepState, error) {
	if st.Status != StepCompensating {
		return st, fmt.Errorf("compensation outcome without an intent (step is %s)", st.Status)
	}
	switch r.Result {
	case ResultApplied:
		st.Status = StepCompensated
	case ResultFailed, ResultSkipped:
		st.Status, st.Error = StepApplied, r.Error
	default:
		return st, fmt.Errorf("compensation result %q", r.Result)
	}
	return st, nil
}
