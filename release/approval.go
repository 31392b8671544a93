package release

import planner "github.com/pynenc/piceli/internal/plan"

// CheckApproval refuses (refusal.Is) an approved hash that is not an
// optional "sha256:" and 12 to 64 lower-case hex digits: glob and path
// characters, upper case, too few or too many digits. Apply, Rollback and
// deploy call it before they read or write anything.
func CheckApproval(hash string) error {
	if _, err := planner.ParseHash(hash); err != nil {
		return refuse(err)
	}
	return nil
}
