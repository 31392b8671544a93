package journal

// Check is how one post-release check went, as a CheckFinished record
// carries it and a revision keeps it. Excerpt is bounded and has every
// secret value of the release taken out before it is recorded; request
// headers are never in it.
type Check struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // http, tcp, command or job
	Passed     bool   `json:"passed"`
	Attempts   int    `json:"attempts,omitempty"`
	DurationMS int64  `json:"durationMs"` // every attempt and pause together
	Excerpt    string `json:"excerpt,omitempty"`
	Error      string `json:"error,omitempty"` // why it failed
}

// The check records: a run's checks start after its last wave is ready.
const (
	ChecksSkipped Type = "checks-skipped" // the run was asked not to run checks: Error says why
	CheckStarted  Type = "check-started"  // Check.Name, Check.Kind is about to run (a job check creates a Job)
	CheckFinished Type = "check-finished" // Check: how it went
)

// applyCheck folds a check record into s.
func (s *State) applyCheck(r Record) {
	switch r.Type {
	case ChecksSkipped:
		s.Checks, s.ChecksSkipped = nil, true
	case CheckFinished:
		if r.Check != nil {
			s.Checks = append(s.Checks, *r.Check)
		}
	}
}
