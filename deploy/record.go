package deploy

import (
	"fmt"
	"time"
)

// Stage names one stage of a deploy. Stages are persisted in journals and
// printed, so they are stable strings.
type Stage string

// The stages of a deploy, in the order they run.
const (
	StageInputs  Stage = "inputs"  // the build's inputs match their lock
	StageBuild   Stage = "build"   // the OCI layout holds the images of that lock
	StageDeliver Stage = "deliver" // the images reached the runtime or registry
	StagePlan    Stage = "plan"    // the release's plan, stored under its hash
	StageApply   Stage = "apply"   // the approved plan, applied wave by wave
	StageChecks  Stage = "checks"  // the release's checks, after the last wave
)

// Stages lists every stage in order.
var Stages = []Stage{StageInputs, StageBuild, StageDeliver, StagePlan, StageApply, StageChecks}

// ParseStage reads a stage name, as --until takes it.
func ParseStage(s string) (Stage, error) {
	for _, st := range Stages {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown stage %q: want one of inputs, build, deliver, plan, apply, checks", s)
}

// RecordType says what a record of a deploy's journal says happened;
// the Record constants are its values.
type RecordType string

// The records of a deploy's journal, in the order a deploy writes them.
const (
	RecordStarted       RecordType = "deploy-started"  // ID, Release, Holder
	RecordResumed       RecordType = "deploy-resumed"  // Holder
	RecordStageStarted  RecordType = "stage-started"   // Stage, Inputs: written before the stage does anything
	RecordStageFinished RecordType = "stage-finished"  // Stage, Inputs, Outcome, Reason and the stage's outputs
	RecordStageFailed   RecordType = "stage-failed"    // Stage, Error
	RecordRun           RecordType = "apply-run"       // Run: the engine's run of the apply stage
	RecordEnded         RecordType = "deploy-ended"    // Status, Error
	RecordTelemetry     RecordType = "telemetry-ended" // Telemetry
)

// Outcome is how a stage that did not fail ended.
type Outcome string

// The outcomes of a finished stage.
const (
	OutcomeDone    Outcome = "done"    // it did its work
	OutcomeSkipped Outcome = "skipped" // its inputs did not change (or it has nothing to do): Reason says which
)

// Record is one entry of a deploy's journal. Fields its type does not use
// are empty.
type Record struct {
	Seq     int64      `json:"seq"`
	Type    RecordType `json:"type"`
	Time    time.Time  `json:"time"`
	ID      string     `json:"id,omitempty"`
	Release string     `json:"release,omitempty"`
	Holder  string     `json:"holder,omitempty"`
	Stage   Stage      `json:"stage,omitempty"`
	Inputs  string     `json:"inputs,omitempty"` // digest of the stage's inputs
	Outcome Outcome    `json:"outcome,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Status  Status     `json:"status,omitempty"`
	Error   string     `json:"error,omitempty"`
	Run     string     `json:"run,omitempty"`

	Outputs *Outputs `json:"outputs,omitempty"`
	// Telemetry says how the export of the deploy's trace ended.
	Telemetry string `json:"telemetry,omitempty"`
}

// Outputs is what a finished stage made or found; each stage sets its own.
type Outputs struct {
	LockDigest string         `json:"lockDigest,omitempty"` // inputs
	Images     []Image        `json:"images,omitempty"`     // build
	Delivery   *Delivery      `json:"delivery,omitempty"`   // deliver
	Plan       string         `json:"plan,omitempty"`       // plan, apply
	Summary    string         `json:"summary,omitempty"`    // plan
	Changed    bool           `json:"changed,omitempty"`    // plan: some step is not a no-op
	Run        string         `json:"run,omitempty"`        // apply
	Revision   int            `json:"revision,omitempty"`   // apply
	Checks     []CheckOutcome `json:"checks,omitempty"`     // checks
}

// Image is one image the build stage made or found in the layout.
type Image struct {
	Name      string `json:"name"`
	Reference string `json:"reference"` // registry/repository@sha256:...
}

// Delivery is where the deliver stage sent the images, and its receipt.
type Delivery struct {
	Target    string `json:"target"`            // containerd or registry
	Address   string `json:"address,omitempty"` // socket or host:port
	Receipt   string `json:"receipt,omitempty"`
	BytesSent int64  `json:"bytesSent,omitempty"`
	Images    int    `json:"images"`
}

// CheckOutcome is how one check of the checks stage went; details stay in
// the release's run journal.
type CheckOutcome struct {
	Name       string `json:"name"`
	Passed     bool   `json:"passed"`
	DurationMS int64  `json:"durationMs"`
}

// Status is how a deploy stands.
type Status string

// The statuses of a deploy.
const (
	StatusRunning  Status = "running"           // its journal has no end (or its process died: Resume continues it)
	StatusApproval Status = "awaiting-approval" // stopped after plan; continue with the plan's hash
	StatusStopped  Status = "stopped"           // stopped after the stage Until named, or on request
	StatusFailed   Status = "failed"            // a stage failed; Resume continues it
	StatusFinished Status = "finished"          // every stage done or skipped
)

// State is a deploy's journal folded: what each stage did.
type State struct {
	ID        string       `json:"id"`
	Release   string       `json:"release"`
	Status    Status       `json:"status"`
	Error     string       `json:"error,omitempty"`
	Started   time.Time    `json:"started"`
	Ended     time.Time    `json:"ended,omitzero"`
	Resumes   int          `json:"resumes,omitempty"`
	Stages    []StageState `json:"stages"`
	Run       string       `json:"run,omitempty"` // the engine's run of the apply stage
	Telemetry string       `json:"telemetry,omitempty"`
	byStage   map[Stage]int
}

// StageState is one stage as the journal tells it.
type StageState struct {
	Stage    Stage     `json:"stage"`
	Status   string    `json:"status"` // started, done, skipped, failed
	Inputs   string    `json:"inputs,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Error    string    `json:"error,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Outputs  *Outputs  `json:"outputs,omitempty"`
	Attempts int       `json:"attempts"` // how many times it started
}

// Duration is how long the stage took, its last attempt.
func (s StageState) Duration() time.Duration {
	if s.Finished.IsZero() {
		return 0
	}
	return s.Finished.Sub(s.Started)
}

// Stage returns the state of stage st, or false when it never started.
func (s *State) Stage(st Stage) (StageState, bool) {
	i, ok := s.byStage[st]
	if !ok {
		return StageState{}, false
	}
	return s.Stages[i], true
}

// Replay folds a deploy's records into its state. It is pure: resume
// decides from its result. A record out of place (a stage finished that
// never started, anything before deploy-started) is an error.
func Replay(recs []Record) (*State, error) {
	s := &State{byStage: map[Stage]int{}}
	for i, r := range recs {
		if err := s.apply(r, i); err != nil {
			return nil, fmt.Errorf("deploy journal record %d (%s): %w", r.Seq, r.Type, err)
		}
	}
	return s, nil
}

func (s *State) apply(r Record, i int) error {
	if i == 0 && r.Type != RecordStarted {
		return fmt.Errorf("a journal must start with %s", RecordStarted)
	}
	switch r.Type {
	case RecordStarted:
		if i != 0 {
			return fmt.Errorf("%s after the first record", RecordStarted)
		}
		s.ID, s.Release, s.Started, s.Status = r.ID, r.Release, r.Time, StatusRunning
	case RecordResumed:
		s.Resumes++
		s.Status, s.Error, s.Ended = StatusRunning, "", time.Time{}
	case RecordStageStarted:
		s.startStage(r)
	case RecordStageFinished, RecordStageFailed:
		return s.endStage(r)
	case RecordRun:
		s.Run = r.Run
	case RecordEnded:
		s.Status, s.Error, s.Ended = r.Status, r.Error, r.Time
	case RecordTelemetry:
		s.Telemetry = r.Telemetry
	default:
		return fmt.Errorf("unknown record type")
	}
	return nil
}

func (s *State) startStage(r Record) {
	i, ok := s.byStage[r.Stage]
	if !ok {
		i = len(s.Stages)
		s.byStage[r.Stage] = i
		s.Stages = append(s.Stages, StageState{Stage: r.Stage})
	}
	st := &s.Stages[i]
	attempts := st.Attempts + 1
	*st = StageState{Stage: r.Stage, Status: "started", Inputs: r.Inputs, Started: r.Time, Attempts: attempts}
}

func (s *State) endStage(r Record) error {
	i, ok := s.byStage[r.Stage]
	if !ok || s.Stages[i].Status != "started" {
		return fmt.Errorf("stage %s ends but did not start", r.Stage)
	}
	st := &s.Stages[i]
	st.Finished, st.Reason, st.Error, st.Outputs = r.Time, r.Reason, r.Error, r.Outputs
	st.Status = string(r.Outcome)
	if r.Type == RecordStageFailed {
		st.Status = "failed"
	}
	return nil
}

// ended reports whether stage st finished (done or skipped) with inputs
// digest inputs, and returns it.
func (s *State) ended(st Stage, inputs string) (StageState, bool) {
	got, ok := s.Stage(st)
	return got, ok && (got.Status == string(OutcomeDone) || got.Status == string(OutcomeSkipped)) && got.Inputs == inputs
}
