package release

import (
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/secret"
)

// retain applies the state directory's retention rule after a finished
// run: the secret.KeepVersions newest versions of each secret, plus every
// version a revision still uses.
func (r *Release) retain() error {
	store := secret.View(r.StateDir())
	names, err := store.Names()
	if err != nil || len(names) == 0 {
		return err
	}
	revs, err := history.List(r.StateDir())
	if err != nil {
		return err
	}
	for _, name := range names {
		pinned := map[int]bool{}
		for _, rev := range revs {
			if n, ok := rev.Secrets[name]; ok {
				pinned[n] = true
			}
		}
		if _, err := store.Prune(name, secret.KeepVersions, pinned); err != nil {
			return err
		}
	}
	return nil
}
