package release

import (
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/progress"
)

// Event is one thing a run did, for a progress display; Kind says which
// fields are set. Events carry references, actions and counts, never object
// contents, so no Secret value reaches them.
type (
	Event     = progress.Event
	EventKind = progress.Kind
)

// The kinds of event, in the order a run meets them.
const (
	RunStarted   = progress.RunStarted   // Run, Plan, Summary, Waves
	WaveStarted  = progress.WaveStarted  // Wave, Waves, Stage, Objects
	StepStarted  = progress.StepStarted  // Wave, Ref, Action
	StepFinished = progress.StepFinished // Wave, Ref, Action, Result, Error
	WaitSkipped  = progress.WaitSkipped  // Wave, Ref, Action, Message: written, readiness not awaited, and why
	Waiting      = progress.Waiting      // Wave, Pending of Total, Names, What
	Diagnosed    = progress.Diagnosed    // Wave, Ref, Message: a problem found while a wave waits
	WaveReady    = progress.WaveReady    // Wave, Waves, Objects
	Settled      = progress.Settled      // Ref, Result: an in-doubt step read back
	Compensating = progress.Compensating // Ref, Result: a completed step undone
	Note         = progress.Note         // Message
	RunFinished  = progress.RunFinished  // Run, Status, Revision, Error
)

// MaxNames bounds the names a Waiting event carries.
const MaxNames = progress.MaxNames

// RunStatus is how a run stands or ended, in Result.Status; a run-finished
// Event carries it as a string.
type RunStatus = journal.RunStatus

// The statuses a run ends with.
const (
	StatusFinished    = journal.StatusFinished    // every wave ready; a new revision
	StatusFailed      = journal.StatusFailed      // stopped by an error; Resume continues it
	StatusStopped     = journal.StatusStopped     // stopped on request; Resume continues it
	StatusCompensated = journal.StatusCompensated // failed and undid its completed steps
)
