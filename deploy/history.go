package deploy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pynenc/piceli/internal/statedir"
	"github.com/pynenc/piceli/release"
)

func journalPath(dir, id string) string { return filepath.Join(dir, id, journalFile) }

// newID names a deploy by its start time and a random suffix, so that IDs
// sort by time.
func newID(now time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return "d" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// deployIDs lists the deploys in dir, oldest first.
func deployIDs(dir string) ([]string, error) {
	ids, err := statedir.List(dir, statedir.Dirs, func(id string) bool {
		_, err := os.Stat(journalPath(dir, id))
		return err == nil
	})
	if err != nil {
		return nil, fmt.Errorf("list deploys: %w", err)
	}
	return ids, nil
}

func readState(dir, id string) (*State, error) {
	recs, err := readJournal(journalPath(dir, id))
	if err != nil {
		return nil, err
	}
	return Replay(recs)
}

// latestDeploy is the newest deploy's state, or nil.
func latestDeploy(dir string) (*State, error) {
	ids, err := deployIDs(dir)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return readState(dir, ids[len(ids)-1])
}

// deliveredBefore finds a deploy whose deliver stage delivered, or found
// delivered, images with these inputs (a continued deploy keeps only the
// stage's last attempt, a skip after the delivery).
func deliveredBefore(dir, inputs string) (string, bool) {
	ids, _ := deployIDs(dir)
	for _, id := range slices.Backward(ids) {
		st, err := readState(dir, id)
		if err != nil {
			continue
		}
		if d, ok := st.Stage(StageDeliver); ok && d.Inputs == inputs && (d.Status == string(OutcomeDone) || d.Status == string(OutcomeSkipped)) {
			return id, true
		}
	}
	return "", false
}

// History lists the release's deploys, oldest first, each as its journal
// tells it: what every stage did, with its inputs' digest, outcome and
// duration. It reads only the state directory of the spec's environment
// env (release.Options Env: required when the spec declares any).
func History(specPath, env string) ([]*State, error) {
	dir, err := deploysDir(specPath, env)
	if err != nil {
		return nil, err
	}
	ids, err := deployIDs(dir)
	if err != nil {
		return nil, err
	}
	out := make([]*State, 0, len(ids))
	for _, id := range ids {
		st, err := readState(dir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Show is one deploy of the release by its ID (or a unique prefix of it),
// as History tells it; an unknown ID is refused (refusal.Is).
func Show(specPath, env, id string) (*State, error) {
	all, err := History(specPath, env)
	if err != nil {
		return nil, err
	}
	var found *State
	for _, st := range all {
		if st.ID == id || (len(id) >= 4 && len(id) < len(st.ID) && st.ID[:len(id)] == id) {
			if found != nil {
				return nil, refusef("deploy %q is ambiguous: it starts %s and %s", id, found.ID, st.ID)
			}
			found = st
		}
	}
	if found == nil {
		return nil, refusef("no deploy %q of this release; list them with piceli deploy history", id)
	}
	return found, nil
}

func deploysDir(specPath, env string) (string, error) {
	rel, err := release.Open(specPath, release.Options{Env: env})
	if err != nil {
		return "", err
	}
	return statedir.Path(rel.StateDir(), statedir.Deploys), nil
}

// fileDigest is "sha256:" and the hex SHA-256 of a file's bytes.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
