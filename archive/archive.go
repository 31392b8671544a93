package archive

import (
	"time"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

// Schema versions an archive document.
const Schema = "piceli.session-archive/v1"

// Archive is what one run declared and how it went. It holds object
// references and keyed digests, never manifests, so it carries no secret
// value.
type Archive struct {
	Schema     string      `json:"schema"`
	Run        string      `json:"run"`
	Source     string      `json:"source,omitempty"` // "apply" or "rollback to N"
	Release    string      `json:"release"`
	Target     plan.Target `json:"target"`
	Namespaces []string    `json:"namespaces"`         // the namespaces the run writes to, sorted
	Plan       string      `json:"plan"`               // the plan hash
	Revision   int         `json:"revision,omitempty"` // the revision the run became; 0 when none
	Status     string      `json:"status"`             // the run's phase: finished, failed, stopped, compensated, running
	Error      string      `json:"error,omitempty"`    // why the run failed
	Started    time.Time   `json:"started"`            // the time of the journal's first record
	Ended      time.Time   `json:"ended"`              // the time of the journal's last record
	Objects    []Object    `json:"objects"`
	Checks     *Checks     `json:"checks,omitempty"` // nil when the run reached no check
}

// Object is one step of the run's plan: the object, what the plan did to
// it and how the step ended. Digest is the keyed digest of the desired
// manifest; a deleted object is not Declared.
type Object struct {
	Ref        object.Ref `json:"ref"`
	APIVersion string     `json:"apiVersion"`
	Resource   string     `json:"resource"`
	Action     string     `json:"action"`
	Declared   bool       `json:"declared"`
	Digest     string     `json:"digest,omitempty"`
	Outcome    string     `json:"outcome"` // the journal's step status
	Error      string     `json:"error,omitempty"`
}

// Checks are the run's check results, or that it skipped them.
type Checks struct {
	Skipped bool          `json:"skipped,omitempty"` // the run was told to skip them
	Results []CheckResult `json:"results,omitempty"`
}

// CheckResult is how one check of the run went: its name and kind, whether
// it passed, how many attempts and how long it took, a bounded excerpt of
// what it saw and why it failed. No secret value of the release is in it.
type CheckResult struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // http, tcp, command or job
	Passed     bool   `json:"passed"`
	Attempts   int    `json:"attempts,omitempty"`
	DurationMS int64  `json:"durationMs"` // every attempt and pause together
	Excerpt    string `json:"excerpt,omitempty"`
	Error      string `json:"error,omitempty"` // why it failed
}
