package lock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// ownerFile, in a state directory, names the release it belongs to.
const ownerFile = statedir.Owner

// ownerSchema versions the owner file.
const ownerSchema = "piceli.state-owner/v1"

// Owner is the release a state directory belongs to: its name and target
// namespace. Two releases that differ in either keep separate plans, runs
// and revisions, so they may not share a state directory.
type Owner struct {
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
}

// String reads like `release "shop" in namespace "prod"`.
func (o Owner) String() string {
	return fmt.Sprintf("release %q in namespace %q", o.Release, o.Namespace)
}

// ownerRecord is the owner file's content.
type ownerRecord struct {
	Schema string `json:"schema"`
	Owner
	Since time.Time `json:"since"` // when the directory was claimed
}

// ErrNotOwner is matched (errors.Is) by every OwnerError.
var ErrNotOwner = errors.New("state directory belongs to another release")

// OwnerError refuses a state directory that belongs to another release.
type OwnerError struct {
	Dir   string
	Owner Owner // who the directory belongs to
	Want  Owner // who tried to use it
}

// Error reads like `state directory /x belongs to release "a" in namespace
// "n", not release "b" in namespace "n": give each release its own
// state_dir`.
func (e *OwnerError) Error() string {
	return fmt.Sprintf("state directory %s belongs to %s, not %s: give each release its own state_dir", e.Dir, e.Owner, e.Want)
}

// Is makes errors.Is(err, ErrNotOwner) true.
func (e *OwnerError) Is(target error) bool { return target == ErrNotOwner }

// CheckOwner returns an *OwnerError when stateDir's owner file names
// another release than o. A directory without one (none yet, or made
// before owner files) passes. It writes nothing.
func CheckOwner(stateDir string, o Owner) error {
	got, ok, err := readOwner(stateDir)
	if err != nil || !ok {
		return err
	}
	return compareOwner(stateDir, got, o)
}

// ClaimOwner makes o the owner of stateDir unless it has one already, and
// returns an *OwnerError when that is another release. The owner file
// (owner.json, 0600, in a directory made 0700) is created at once whole and
// never replaced, so of two releases claiming one directory at the same
// time exactly one owns it. A directory without an owner file, from before
// owner files, is adopted by its first claimant.
func ClaimOwner(stateDir string, o Owner) error {
	if err := atomicfile.MkdirPrivate(stateDir); err != nil {
		return fmt.Errorf("claim state directory %s: %w", stateDir, err)
	}
	data, err := json.Marshal(ownerRecord{Schema: ownerSchema, Owner: o, Since: time.Now().UTC()})
	if err != nil {
		return fmt.Errorf("claim state directory %s: %w", stateDir, err)
	}
	err = atomicfile.WriteNew(filepath.Join(stateDir, ownerFile), append(data, '\n'), 0o600)
	if errors.Is(err, fs.ErrExist) {
		return CheckOwner(stateDir, o)
	}
	if err != nil {
		return fmt.Errorf("claim state directory %s: %w", stateDir, err)
	}
	return nil
}

// readOwner reads stateDir's owner file; ok is false when there is none.
func readOwner(stateDir string) (Owner, bool, error) {
	path := filepath.Join(stateDir, ownerFile)
	data, err := statedir.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Owner{}, false, nil
	}
	if err != nil {
		return Owner{}, false, fmt.Errorf("read owner of state directory: %w", err)
	}
	var rec ownerRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return Owner{}, false, fmt.Errorf("read owner of state directory: %s: %w", path, err)
	}
	if rec.Schema != ownerSchema {
		return Owner{}, false, fmt.Errorf("read owner of state directory: %s: schema %q, want %q", path, rec.Schema, ownerSchema)
	}
	return rec.Owner, true, nil
}

func compareOwner(stateDir string, got, want Owner) error {
	if got != want {
		return &OwnerError{Dir: stateDir, Owner: got, Want: want}
	}
	return nil
}
