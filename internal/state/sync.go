package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/pynenc/piceli/internal/statedir"
)

// ErrOlder is matched by the error of a pull that found a snapshot older
// than one this machine has seen (or none, where it has seen one): a
// replayed or restored state, refused unless acknowledged (PullOlder).
var ErrOlder = errors.New("older than the state this machine has seen")

// OlderError refuses a snapshot older than the newest this machine has
// verified: Generation 0 means the state is gone from the cluster.
type OlderError struct {
	Release    string
	Namespace  string
	Generation int64 // what the cluster holds now; 0: nothing
	Seen       int64 // the newest generation this machine verified
}

func (e *OlderError) Error() string {
	found := fmt.Sprintf("holds state snapshot %d", e.Generation)
	if e.Generation == 0 {
		found = "holds no state"
	}
	return fmt.Sprintf("the state of release %s: namespace %s %s, but this machine has seen snapshot %d (a restored backup or a replay?); nothing was merged. If the cluster's state is meant to go back, accept it with: piceli state pull --spec SPEC --accept-older %d",
		e.Release, e.Namespace, found, e.Seen, e.Generation)
}

// Unwrap makes an OlderError match ErrOlder.
func (e *OlderError) Unwrap() error { return ErrOlder }

// maxAcks bounds the acknowledgements a sync record keeps.
const maxAcks = 20

// syncRecord is the cache's note of the snapshot it last agreed with and
// of the newest generation this machine has verified, whose floor a later
// snapshot may not go below unacknowledged.
type syncRecord struct {
	Generation int64    `json:"generation"`
	Digest     string   `json:"sha256"`
	Files      []string `json:"files"`
	// Seen is the newest generation this machine has verified (pulled or
	// pushed); it never goes down, so pushes number past it.
	Seen int64 `json:"seen"`
	// Acks are the older states accepted on request, newest last.
	Acks []Ack `json:"acks,omitempty"`
}

// Ack records one acknowledged older state: which generation was accepted
// (0: none) while this machine had seen Seen, and when.
type Ack struct {
	Generation int64     `json:"generation"`
	Seen       int64     `json:"seen"`
	At         time.Time `json:"at"`
}

// floor is the newest generation this machine has verified.
func (r syncRecord) floor() int64 { return max(r.Seen, r.Generation) }

// agrees reports whether the cache is in step with snap already.
func (r syncRecord) agrees(snap *Snapshot) bool {
	return r.Generation == snap.Generation && r.Digest == snap.Digest
}

// admit refuses snap when it is older than this machine's floor (or the
// same generation with other content), unless accept names its generation.
func (c *Cluster) admit(r syncRecord, snap *Snapshot, accept *int64) error {
	if snap.Generation > r.floor() || r.agrees(snap) || accept != nil && *accept == snap.Generation {
		return nil
	}
	return &OlderError{Release: c.Release, Namespace: c.Namespace, Generation: snap.Generation, Seen: r.floor()}
}

// after is the record of a cache that now agrees with snap, whose files
// are paths; accepted says it was an acknowledged older state.
func (r syncRecord) after(snap *Snapshot, paths []string, accepted bool) syncRecord {
	next := syncRecord{Generation: snap.Generation, Digest: snap.Digest, Files: paths, Seen: max(r.floor(), snap.Generation), Acks: r.Acks}
	if accepted {
		next.Acks = r.ack(snap.Generation)
	}
	return next
}

// ack returns the acknowledgements with one of generation added.
func (r syncRecord) ack(generation int64) []Ack {
	acks := append(slices.Clone(r.Acks), Ack{Generation: generation, Seen: r.floor(), At: time.Now().UTC()})
	return acks[max(0, len(acks)-maxAcks):]
}

// gone lists the files of the recorded snapshot that files lacks.
func (r syncRecord) gone(files []File) []string {
	now := make(map[string]bool, len(files))
	for _, f := range files {
		now[f.Path] = true
	}
	var gone []string
	for _, p := range r.Files {
		if !now[p] && !local(p) {
			gone = append(gone, p)
		}
	}
	return gone
}

func paths(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	slices.Sort(out)
	return out
}

// readSync reads the sync record; a missing or damaged one means "agreed
// with nothing, seen nothing".
func readSync(dir string) syncRecord {
	var r syncRecord
	data, err := statedir.ReadFile(filepath.Join(dir, syncFile))
	if err == nil {
		json.Unmarshal(data, &r)
	}
	return r
}

func writeSync(dir string, r syncRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writePrivate(filepath.Join(dir, syncFile), data)
}
