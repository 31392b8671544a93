package progress

// Schema versions a stream of events written as JSON lines: each line is
// an Event with "schema" set to it.
const Schema = "piceli.progress/v1"

// Line is an Event as one line of such a stream: the event's fields beside
// "schema".
type Line struct {
	Schema string `json:"schema"` // Schema
	Event
}

// LineOf returns e as a Line.
func LineOf(e Event) Line { return Line{Schema: Schema, Event: e} }

// Kind says what happened. Kinds are persisted in JSON lines, so they are
// stable strings.
type Kind string

// The kinds of event, in the order a run meets them.
const (
	RunStarted   Kind = "run-started"   // Run, Plan, Summary, Waves
	WaveStarted  Kind = "wave-started"  // Wave, Waves, Stage, Objects
	StepStarted  Kind = "step-started"  // Wave, Ref, Action
	StepFinished Kind = "step-finished" // Wave, Ref, Action, Result, Error
	WaitSkipped  Kind = "wait-skipped"  // Wave, Ref, Action, Message: a step of the wave whose readiness is not waited for, and why
	Waiting      Kind = "waiting"       // Wave, Pending, Total, Names, What
	Diagnosed    Kind = "diagnosed"     // Wave, Ref, Message: a problem keeping an object of the wave from getting ready, found while the wave waits
	WaveReady    Kind = "wave-ready"    // Wave, Waves, Objects
	Settled      Kind = "settled"       // Ref, Result: an in-doubt step read back from the cluster
	Compensating Kind = "compensating"  // Ref, Result: one completed step being undone
	Note         Kind = "note"          // Message
	RunFinished  Kind = "run-finished"  // Run, Phase, Revision, Error
)

// The kinds of event of a run's checks, which run after its last wave.
const (
	CheckStarted  Kind = "check-started"  // Check, What (its kind)
	CheckFinished Kind = "check-finished" // Check, What, Result (passed or failed), DurationMS, Error
)

// Event is one thing a run did. Only the fields its Kind names are set; the
// rest are zero and left out of JSON. Events carry object references,
// actions and counts, never object contents, so no Secret value can reach
// them.
type Event struct {
	Kind Kind `json:"event"`

	Run     string `json:"run,omitempty"`     // the run's id
	Plan    string `json:"plan,omitempty"`    // full plan hash
	Summary string `json:"summary,omitempty"` // "2 to create, 1 to update, ..."

	Wave    int    `json:"wave"`            // 0-based wave index
	Waves   int    `json:"waves,omitempty"` // waves in the plan
	Stage   string `json:"stage,omitempty"` // the wave's stage (plan.Stage)
	Objects int    `json:"objects,omitempty"`

	Ref    string `json:"ref,omitempty"`    // Kind/namespace/name
	Action string `json:"action,omitempty"` // the step's action (plan.Action)
	Result string `json:"result,omitempty"` // applied, failed, not-applied, skipped, ...

	// Waiting: Pending of Total objects of the wave are not ready yet;
	// Names holds at most MaxNames of them, What names their kind when they
	// share one ("Deployments"), else "objects".
	Pending int      `json:"pending,omitempty"`
	Total   int      `json:"total,omitempty"`
	Names   []string `json:"names,omitempty"`
	What    string   `json:"what,omitempty"`

	// Check names a post-release check (check-started, check-finished);
	// DurationMS is how long it took, every attempt included.
	Check      string `json:"check,omitempty"`
	DurationMS int64  `json:"durationMs,omitempty"`

	// Phase is how a run ended (run-finished): finished, failed, stopped
	// or compensated.
	Phase    string `json:"phase,omitempty"`
	Revision int    `json:"revision,omitempty"` // the revision a finished run became
	Message  string `json:"message,omitempty"`
	Error    string `json:"error,omitempty"`
}

// MaxNames bounds the names a Waiting event carries, so a wait on a hundred
// objects never prints a hundred names per tick.
const MaxNames = 3
