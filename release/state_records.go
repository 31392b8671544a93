package release

import "github.com/pynenc/piceli/internal/state"

// StateSnapshot describes one snapshot of a shared release's state, as
// State.Show reads it from the cluster.
type StateSnapshot struct {
	Generation  int64        `json:"generation"` // counts up by one per push
	Digest      string       `json:"sha256"`     // SHA-256 of the snapshot's content
	Size        int          `json:"size"`       // bytes
	Files       int          `json:"files"`      // state files it holds
	Writer      string       `json:"writer"`     // who pushed it: "user@host pid N"
	Transitions int32        `json:"leaseTransitions"`
	Chunks      []StateChunk `json:"chunks"`
	// Signer is the public key ("ed25519:<base64>") whose Signature, in
	// base64, covers the snapshot. Writer and Transitions are not
	// covered: they say who held the Lease, for people.
	Signer    string `json:"signer,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// StateChunk is one chunk Secret of a snapshot.
type StateChunk struct {
	Name   string `json:"name"`
	Digest string `json:"sha256"`
	Size   int    `json:"size"`
}

// StatePulledSchema versions the document of a StatePulled.
const StatePulledSchema = "piceli.state-pull/v1"

// StatePulled says what State.Pull found.
type StatePulled struct {
	Schema     string `json:"schema"`     // StatePulledSchema
	Generation int64  `json:"generation"` // the snapshot used; zero when there is none yet
	Files      int    `json:"files"`      // files in it
	Changed    int    `json:"changed"`    // state directory files written
	// Refused names what was wrong with a newer snapshot that was not
	// used (a missing or damaged chunk), when the previous one was.
	Refused string `json:"refused,omitempty"`
	// Accepted is set when the pull took an older state than this machine
	// had seen, as PullStateOptions.AcceptOlder asked.
	Accepted *StateAccepted `json:"accepted,omitempty"`
}

// StateImportedSchema versions the document of a StateImported.
const StateImportedSchema = "piceli.state-import/v1"

// StateImported records a State.Import that succeeded: the release whose
// state took the export, and the export file.
type StateImported struct {
	Schema  string `json:"schema"` // StateImportedSchema
	Release string `json:"release"`
	File    string `json:"file"`
}

// StateMigratedSchema versions the document of a StateMigrated.
const StateMigratedSchema = "piceli.state-migrate/v1"

// StateMigrated records a State.Migrate that succeeded: the release, the
// mode its state moved to ("cluster" or "local"), and what Migrate says to
// do next in the spec.
type StateMigrated struct {
	Schema  string `json:"schema"` // StateMigratedSchema
	Release string `json:"release"`
	To      string `json:"to"`
	Next    string `json:"next"`
}

// StateAccepted is an older state accepted on purpose: the generation
// taken (0: none) and the newest this machine had seen before.
type StateAccepted struct {
	Generation int64 `json:"generation"`
	Seen       int64 `json:"seen"`
}

func snapshotOf(s *state.Snapshot) *StateSnapshot {
	if s == nil {
		return nil
	}
	out := &StateSnapshot{
		Generation: s.Generation, Digest: s.Digest, Size: s.Size, Files: s.Files, Writer: s.Writer,
		Transitions: s.Transitions, Signer: s.Signer, Signature: s.Signature,
	}
	for _, c := range s.Chunks {
		out.Chunks = append(out.Chunks, StateChunk(c))
	}
	return out
}

func pulledOf(p *state.Pulled) *StatePulled {
	out := &StatePulled{Schema: StatePulledSchema, Generation: p.Generation, Files: p.Files, Changed: p.Changed, Refused: p.Refused}
	if a := p.Accepted; a != nil {
		out.Accepted = &StateAccepted{Generation: a.Generation, Seen: a.Seen}
	}
	return out
}
