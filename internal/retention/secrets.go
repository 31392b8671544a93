package retention

import (
	"fmt"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/secret"
)

// PruneSecrets applies the secret rule to a release's store: of each
// secret, the keep newest versions stay (0 or less means
// secret.KeepVersions), and so does every version a revision uses; the
// others are deleted. Revisions are read from the history index. It is
// the secret part of Apply, for callers that prune only secrets (after a
// finished run); the caller holds the release's lock.
func PruneSecrets(stateDir string, keep int) (Tally, error) {
	sums, err := history.Summaries(stateDir)
	if err != nil {
		return newTally(), fmt.Errorf("prune secrets: %w", err)
	}
	t, err := pruneSecrets(stateDir, Rule{SecretVersions: keep}.withDefaults().SecretVersions, sums)
	if err != nil {
		return t, fmt.Errorf("prune secrets: %w", err)
	}
	return t, nil
}

// pruneSecrets prunes every secret of the store to its keep newest
// versions plus those the revisions sums use, and tallies them.
func pruneSecrets(stateDir string, keep int, sums []history.Summary) (Tally, error) {
	t := newTally()
	store := secret.View(stateDir)
	names, err := store.Names()
	if err != nil {
		return t, err
	}
	for _, name := range names {
		if err := pruneSecret(store, name, keep, pinned(sums, name), &t); err != nil {
			return t, err
		}
	}
	return t, nil
}

// pruneSecret prunes one secret and tallies its versions as name/number.
func pruneSecret(store *secret.Store, name string, keep int, pins map[int]bool, t *Tally) error {
	before, err := store.Versions(name)
	if err != nil {
		return err
	}
	deleted, err := store.Prune(name, keep, pins)
	gone := map[int]bool{}
	for _, n := range deleted {
		gone[n] = true
		t.remove(fmt.Sprintf("%s/%d", name, n))
	}
	if err != nil {
		return err
	}
	for _, n := range before {
		if !gone[n] {
			t.keep(fmt.Sprintf("%s/%d", name, n))
		}
	}
	return nil
}

// pinned returns the versions of the secret name that revisions use.
func pinned(sums []history.Summary, name string) map[int]bool {
	out := map[int]bool{}
	for _, s := range sums {
		if n, ok := s.Secrets[name]; ok {
			out[n] = true
		}
	}
	return out
}
