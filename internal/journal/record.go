package journal

import (
	"time"

	"github.com/pynenc/piceli/internal/object"
)

// Type names what a record says happened. Its values are persisted.
type Type string

// The record types, in the order a run typically writes them.
const (
	RunStarted        Type = "run-started"        // first record: Run, Plan, Holder
	WaveReady         Type = "wave-ready"         // Wave passed its readiness wait
	Intent            Type = "intent"             // Step is about to be written: Action, Ref
	Outcome           Type = "outcome"            // Step's write returned: Result, UID, ResourceVersion, Error
	StopRequested     Type = "stop-requested"     // Holder asked the run to stop
	RunStopped        Type = "run-stopped"        // terminal: stopped cleanly, resumable
	RunFinished       Type = "run-finished"       // terminal: every step applied
	RunFailed         Type = "run-failed"         // terminal: Error
	CompensateStarted Type = "compensate-started" // undoing this run's steps begins
	CompensateIntent  Type = "compensate-intent"  // Step is about to be undone: Action, Ref
	CompensateOutcome Type = "compensate-outcome" // Step's undo returned: Result, Error
	Compensated       Type = "compensated"        // terminal: compensation ended
	Resumed           Type = "resumed"            // a later process took the run over: Run, Holder
	Settled           Type = "settled"            // an in-doubt Step was settled by reading the cluster
)

// Result is how a write, undo or settlement ended. Its values are persisted.
type Result string

// The results. Outcome and CompensateOutcome records carry Applied, Failed
// or Skipped; Settled records carry Applied or NotApplied.
const (
	ResultApplied    Result = "applied"     // the write reached the cluster
	ResultFailed     Result = "failed"      // the write was refused or errored: Error
	ResultSkipped    Result = "skipped"     // the write was not attempted after all
	ResultNotApplied Result = "not-applied" // settlement found the write absent
)

// NoStep is the Step of a record that is not about a step. Append sets it on
// every record whose Type is not step-scoped, so a zero Step in the file
// always means step 0.
const NoStep = -1

// Record is one entry of the journal. Fields a Type does not use are left
// empty; Seq is assigned by Append, and a zero Time is set by Append to the
// current time.
type Record struct {
	Seq             int64       `json:"seq"`
	Type            Type        `json:"type"`
	Time            time.Time   `json:"time"`
	Run             string      `json:"run,omitempty"`    // run id (RunStarted, Resumed)
	Plan            string      `json:"plan,omitempty"`   // plan hash (RunStarted)
	Step            int         `json:"step"`             // index into the plan's steps, or NoStep
	Wave            int         `json:"wave,omitempty"`   // wave index (WaveReady)
	Action          string      `json:"action,omitempty"` // create, update, delete, replace, ... (Intent, CompensateIntent)
	Ref             *object.Ref `json:"ref,omitempty"`
	Result          Result      `json:"result,omitempty"`
	UID             string      `json:"uid,omitempty"` // after a write (Outcome, Settled)
	ResourceVersion string      `json:"resourceVersion,omitempty"`
	Error           string      `json:"error,omitempty"`
	Holder          string      `json:"holder,omitempty"` // user@host pid (RunStarted, Resumed, StopRequested)
	Check           *Check      `json:"check,omitempty"`  // CheckStarted (name and kind), CheckFinished
	// Fields (Outcome, Settled, after a write) is the keyed digest of what
	// the object held, as the write returned it, at every path the step's
	// manifest sets (plan.Digester.Fields): a later plan that finds those
	// values unchanged knows the write still stands, whatever else moved
	// the resourceVersion since (a controller writing status).
	Fields string `json:"fields,omitempty"`
	// Seal (RunStarted) is a keyed digest of the run and its plan, made
	// with the release's key when the run starts: resume checks it, so a
	// journal edited to name another stored plan is refused.
	Seal string `json:"seal,omitempty"`
}

// stepScoped reports whether records of type t are about one step.
func (t Type) stepScoped() bool {
	switch t {
	case Intent, Outcome, Settled, CompensateIntent, CompensateOutcome:
		return true
	}
	return false
}

// known reports whether t is one of the record types.
func (t Type) known() bool {
	switch t {
	case RunStarted, WaveReady, StopRequested, RunStopped, RunFinished, RunFailed,
		CompensateStarted, Compensated, Resumed, ChecksSkipped, CheckStarted, CheckFinished:
		return true
	}
	return t.stepScoped()
}
