package retention

import (
	"fmt"
	"strings"

	"github.com/pynenc/piceli/internal/secret"
)

// Defaults of a Rule's zero fields.
const (
	defaultPlans = 50
	defaultRuns  = 20
)

// Rule says how much of a release's state Apply keeps beyond what is always
// kept (see Apply). The zero value is the default rule.
type Rule struct {
	Plans          int // newest stored plans kept; 0 or less means 50
	Runs           int // newest runs kept; 0 or less means 20
	SecretVersions int // newest versions kept of each secret; 0 or less means secret.KeepVersions
}

// withDefaults fills the zero fields of r.
func (r Rule) withDefaults() Rule {
	if r.Plans <= 0 {
		r.Plans = defaultPlans
	}
	if r.Runs <= 0 {
		r.Runs = defaultRuns
	}
	if r.SecretVersions <= 0 {
		r.SecretVersions = secret.KeepVersions
	}
	return r
}

// Report says what Apply removed and kept. Plans are named by full hash and
// listed oldest first; runs by id, oldest first; secret versions as
// name/number, by name then number.
type Report struct {
	Plans          Tally `json:"plans"`
	Runs           Tally `json:"runs"`
	SecretVersions Tally `json:"secretVersions"`
	// Warnings name what was kept only because it could not be read: a run
	// whose journal cannot be replayed is never removed on a guess.
	Warnings []string `json:"warnings,omitempty"`
}

// Tally is what Apply did to one kind of state: the ids it kept and
// removed, and how many of each.
type Tally struct {
	Kept         []string `json:"kept"`
	Removed      []string `json:"removed"`
	KeptCount    int      `json:"keptCount"`
	RemovedCount int      `json:"removedCount"`
}

// newTally returns an empty tally whose lists encode as [], not null.
func newTally() Tally { return Tally{Kept: []string{}, Removed: []string{}} }

func (t *Tally) keep(id string) { t.Kept, t.KeptCount = append(t.Kept, id), t.KeptCount+1 }

func (t *Tally) remove(id string) {
	t.Removed, t.RemovedCount = append(t.Removed, id), t.RemovedCount+1
}

// String summarizes r for people: one line of counts, then each warning on
// a line of its own.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "removed %d plans (kept %d), %d runs (kept %d), %d secret versions (kept %d)",
		r.Plans.RemovedCount, r.Plans.KeptCount, r.Runs.RemovedCount, r.Runs.KeptCount,
		r.SecretVersions.RemovedCount, r.SecretVersions.KeptCount)
	for _, w := range r.Warnings {
		b.WriteString("\nwarning: " + w)
	}
	return b.String()
}
