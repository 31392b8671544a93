package history

import (
	"slices"

	"github.com/pynenc/piceli/internal/journal"
)

// Checks is what the run a revision records found of the release's
// checks: their results, in declaration order, or that it was told to
// skip them and why. A revision without Checks comes from before checks
// ran, or from a release that declares none.
type Checks struct {
	Skipped bool            `json:"skipped,omitempty"`
	Reason  string          `json:"reason,omitempty"` // why they were skipped
	Results []journal.Check `json:"results,omitempty"`
}

// clone returns a copy of c, nil for nil.
func (c *Checks) clone() *Checks {
	if c == nil {
		return nil
	}
	out := *c
	out.Results = slices.Clone(c.Results)
	return &out
}
