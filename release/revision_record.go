package release

import (
	"errors"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
)

// Revision is one applied plan of the release, as History lists it. The
// objects themselves stay in the state directory.
type Revision struct {
	Number   int       `json:"number"`           // 1 for the first, then one more per finished run
	Plan     string    `json:"plan"`             // the hash of the plan its run applied
	Run      string    `json:"run"`              // the id of the run it came from
	Source   string    `json:"source,omitempty"` // "apply" or "rollback to N"
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Outcome  string    `json:"outcome"`
	Objects  int       `json:"objects"` // how many objects it holds
	// Unchanged says its run wrote no object: it applied a no-op plan.
	Unchanged bool `json:"unchanged,omitempty"`
	// Secrets are the versions of the declared secrets it used, by name.
	Secrets map[string]int  `json:"secrets,omitempty"`
	Checks  *RevisionChecks `json:"checks,omitempty"`
	// Damaged says why the revision may not be applied again (its seal
	// fails, or its objects are not its plan's), when a reader checked
	// (HistoryOptions.Verify, Run); empty when it passed or was not
	// checked.
	Damaged string `json:"damaged,omitempty"`
}

// RevisionChecks is what the run a revision records found of the
// release's checks: their results, or that they were skipped and why. A
// revision without them comes from a release that declares none.
type RevisionChecks struct {
	Skipped bool          `json:"skipped,omitempty"`
	Reason  string        `json:"reason,omitempty"` // why they were skipped
	Results []CheckResult `json:"results,omitempty"`
}

// CheckResult is how one check of the release went: its name and kind,
// whether it passed, how many attempts and how long it took, a bounded
// excerpt of what it saw (an HTTP status line and body, a command's
// output, a Job's logs) and why it failed. No secret value of the release
// is in it, in any encoding, and request headers never are.
type CheckResult struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // http, tcp, command or job
	Passed     bool   `json:"passed"`
	Attempts   int    `json:"attempts,omitempty"`
	DurationMS int64  `json:"durationMs"` // every attempt and pause together
	Excerpt    string `json:"excerpt,omitempty"`
	Error      string `json:"error,omitempty"` // why it failed
}

// ChecksFailedError says which checks failed: from Check, or wrapped in the
// *RunFailedError of a run whose checks failed.
type ChecksFailedError struct {
	Failed []CheckResult // in declaration order
	err    error
}

func (e *ChecksFailedError) Error() string { return e.err.Error() }
func (e *ChecksFailedError) Unwrap() error { return e.err }

// checksFailed puts a *ChecksFailedError in front of an error from the
// engine that holds its own, keeping the chain behind it.
func checksFailed(err error) error {
	var cf *apply.ChecksFailedError
	if !errors.As(err, &cf) {
		return err
	}
	return &ChecksFailedError{Failed: checkResults(cf.Failed), err: err}
}

func revisionOf(s history.Summary) Revision {
	return Revision{
		Number: s.Number, Plan: s.Plan, Run: s.Run, Source: s.Source, Started: s.Started, Finished: s.Finished,
		Outcome: s.Outcome, Objects: s.Objects, Unchanged: s.Unchanged, Secrets: s.Secrets,
		Checks: revisionChecks(s.Checks), Damaged: s.Damaged,
	}
}

func revisionsOf(sums []history.Summary) []Revision {
	out := make([]Revision, len(sums))
	for i, s := range sums {
		out[i] = revisionOf(s)
	}
	return out
}

func revisionChecks(c *history.Checks) *RevisionChecks {
	if c == nil {
		return nil
	}
	return &RevisionChecks{Skipped: c.Skipped, Reason: c.Reason, Results: checkResults(c.Results)}
}

func checkResults(cs []journal.Check) []CheckResult {
	if cs == nil {
		return nil
	}
	out := make([]CheckResult, len(cs))
	for i, c := range cs {
		out[i] = CheckResult(c)
	}
	return out
}

func journalChecks(cs []CheckResult) []journal.Check {
	out := make([]journal.Check, len(cs))
	for i, c := range cs {
		out[i] = journal.Check(c)
	}
	return out
}
