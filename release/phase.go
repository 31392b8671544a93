package release

import "github.com/pynenc/piceli/internal/apply"

// Phase is where a run stands in its lifecycle, as its journal and the
// release's file lock tell. Phases are printed and written in JSON, so
// they are stable strings.
type Phase string

// The phases of a run.
const (
	PhaseRunning     Phase = "running"     // its holder runs it now
	PhaseInterrupted Phase = "interrupted" // running in its journal, its holder gone; Resume continues it
	PhaseFinished    Phase = "finished"    // every wave ready and the checks passed; a new revision
	PhaseFailed      Phase = "failed"      // stopped by an error; Resume continues it
	PhaseStopped     Phase = "stopped"     // stopped on request; Resume continues it
	PhaseCompensated Phase = "compensated" // failed and undid its completed steps
)

// Result says how a run of Apply, Resume or Rollback ended.
type Result struct {
	Run      string `json:"run"`                // the run's id
	Phase    Phase  `json:"phase"`              // finished, failed, stopped or compensated
	Revision int    `json:"revision,omitempty"` // the revision a finished run became
}

// resultOf is the engine's result as users read it; nil for nil.
func resultOf(res *apply.Result) *Result {
	if res == nil {
		return nil
	}
	return &Result{Run: res.Run, Phase: Phase(res.Status), Revision: res.Revision}
}
