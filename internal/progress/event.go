package progress

import pub "github.com/pynenc/piceli/progress"

// Event and Kind live in the public package progress, where users read
// them; the engine emits them through a Sink.
type (
	Event = pub.Event
	Kind  = pub.Kind
)

// The kinds of event, in the order a run meets them.
const (
	RunStarted    = pub.RunStarted
	WaveStarted   = pub.WaveStarted
	StepStarted   = pub.StepStarted
	StepFinished  = pub.StepFinished
	WaitSkipped   = pub.WaitSkipped
	Waiting       = pub.Waiting
	Diagnosed     = pub.Diagnosed
	WaveReady     = pub.WaveReady
	Settled       = pub.Settled
	Compensating  = pub.Compensating
	Note          = pub.Note
	RunFinished   = pub.RunFinished
	CheckStarted  = pub.CheckStarted
	CheckFinished = pub.CheckFinished
)

// MaxNames bounds the names a Waiting event carries.
const MaxNames = pub.MaxNames

// Sink receives events. The engine calls it from several goroutines, so an
// implementation serialises (progress.Serial); a nil Sink drops everything.
type Sink func(Event)

// Emit sends e to s unless s is nil.
func (s Sink) Emit(e Event) {
	if s != nil {
		s(e)
	}
}
