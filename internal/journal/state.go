package journal

import (
	"slices"

	"github.com/pynenc/piceli/internal/object"
)

// RunStatus is where a run stands according to its journal.
type RunStatus string

// The run statuses. StatusRunning means no terminal record follows the
// latest RunStarted or Resumed: the run is live or was interrupted.
const (
	StatusRunning     RunStatus = "running"
	StatusStopped     RunStatus = "stopped"
	StatusFinished    RunStatus = "finished"
	StatusFailed      RunStatus = "failed"
	StatusCompensated RunStatus = "compensated"
)

// StepStatus is where one plan step stands according to the journal.
type StepStatus string

// The step statuses.
const (
	StepPending      StepStatus = "pending"      // never written, or settled as not applied
	StepInDoubt      StepStatus = "in-doubt"     // an intent without an outcome: read the cluster to settle it
	StepApplied      StepStatus = "applied"      // written; never write it again
	StepFailed       StepStatus = "failed"       // the write was refused or errored
	StepCompensating StepStatus = "compensating" // an undo intent without an outcome
	StepCompensated  StepStatus = "compensated"  // written, then undone
)

// State is the fold of a journal's records: what Replay returns.
type State struct {
	Run    string // run id
	Plan   string // plan hash
	Status RunStatus
	Holder string // who runs it: the Holder of RunStarted or the latest Resumed
	Error  string // the Error of RunFailed, cleared by Resumed
	// Steps holds every step any record is about, by plan index. A step
	// absent from it is pending.
	Steps map[int]StepState
	// WavesReady is one past the highest wave recorded ready (0: none).
	WavesReady int
	// StopRequested is set by StopRequested and cleared by Resumed.
	StopRequested bool
	// Compensating is set by CompensateStarted and cleared by Compensated.
	Compensating bool
	// Checks are the results of the checks the run's latest session (since
	// RunStarted or the latest Resumed) ran, in order; ChecksSkipped says
	// that session skipped them instead. A resumed run runs them again.
	Checks        []Check
	ChecksSkipped bool
}

// StepState is what the journal says about one plan step.
type StepState struct {
	Status          StepStatus
	Action          string     // from the latest intent
	Ref             object.Ref // from the latest intent that named one
	UID             string     // from the outcome or settlement that found it applied
	ResourceVersion string
	Error           string // from the latest failed outcome
	// Intents counts intents recorded for the step; more than one happens
	// only when a resumed run writes a step settled as not applied, or
	// retries a failed one.
	Intents int
}

// InDoubt returns, in ascending order, the steps with an intent but no
// outcome or settlement. It does not include StepCompensating steps.
func (s State) InDoubt() []int {
	var out []int
	for i, st := range s.Steps {
		if st.Status == StepInDoubt {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Pending returns, in ascending order, the steps in [0, total) that are
// pending: never written, skipped, or settled as not applied. Failed and
// in-doubt steps are not pending.
func (s State) Pending(total int) []int {
	var out []int
	for i := range total {
		if st, ok := s.Steps[i]; !ok || st.Status == StepPending {
			out = append(out, i)
		}
	}
	return out
}

// Done reports whether step i is applied, so it must never be written
// again by this run. A compensated step is not done.
func (s State) Done(i int) bool {
	return s.Steps[i].Status == StepApplied
}
