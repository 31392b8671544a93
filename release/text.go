package release

import (
	"io"

	"github.com/pynenc/piceli/internal/plan"
)

// TextOptions tune WritePlan. The zero value is valid.
type TextOptions struct {
	Color bool // ANSI colors, for a terminal
}

// WritePlan writes p for people: its target, each step with its action and
// changed fields (Secret values only as digests), conflicts and a summary.
func WritePlan(w io.Writer, p *Plan, opts TextOptions) {
	plan.WriteText(w, p, plan.TextOptions{Color: opts.Color})
}

// ShortHash is the first 12 hex digits of a plan hash, which Apply accepts
// in place of the whole.
func ShortHash(hash string) string { return plan.ShortHash(hash) }

// CheckApproval refuses (refusal.Is) an approved hash that is not an
// optional "sha256:" and 12 to 64 lower-case hex digits: glob and path
// characters, upper case, too few or too many digits. Apply, Rollback and
// deploy call it before they read or write anything.
func CheckApproval(hash string) error {
	if _, err := plan.ParseHash(hash); err != nil {
		return refuse(err)
	}
	return nil
}

// Summary counts a plan's steps by action: "2 to create, 1 unchanged".
func Summary(p *Plan) string { return plan.Summary(p) }
