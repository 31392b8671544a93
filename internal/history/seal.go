package history

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/digest"
)

// ErrUnsealed marks a revision that carries no seal: recorded by a Piceli
// older than sealed revisions, or its seal was removed.
var ErrUnsealed = errors.New("it has no seal (recorded by an older piceli, or edited)")

// ErrTampered marks a revision whose content does not match its seal: the
// file was edited after it was recorded, or the release's digest key was
// replaced since.
var ErrTampered = errors.New("it does not match its seal (edited since it was recorded, or the digest key changed)")

// sealInfo names what the revision seal key is derived for.
const sealInfo = "piceli revision seal v1"

// sealOf is the seal of r under the release's digest key: a keyed digest,
// with a key derived from the digest key and used for nothing else, of r's
// JSON with an empty Seal. Every other field is covered: objects, secret
// versions, plan, run, source, times, outcome and checks.
func sealOf(key []byte, r Revision) (string, error) {
	seal, _, err := sealed(key, r)
	return seal, err
}

// sealed returns r's seal and r's JSON with that seal, encoding r once: a
// large revision's encoding is most of the time a run spends recording
// it. Seal is Revision's last field and left out while empty, so r's JSON
// with its seal is the JSON the seal covers, the seal added before the
// closing brace (TestStoredRevisionIsItsJSON holds the two
// together).
func sealed(key []byte, r Revision) (string, []byte, error) {
	k, err := digest.SealKey(key, sealInfo)
	if err != nil {
		return "", nil, err
	}
	r.Seal = ""
	unsealed, err := encode(r)
	if err != nil {
		return "", nil, fmt.Errorf("encode revision %d: %w", r.Number, err)
	}
	seal := digest.Of(k, unsealed)
	quoted, err := json.Marshal(seal)
	if err != nil {
		return "", nil, err
	}
	doc := append(unsealed[:len(unsealed)-1], `,"seal":`...)
	doc = append(append(doc, quoted...), '}')
	return seal, doc, nil
}

// Verify checks r against its seal under the release's digest key: an
// error matching ErrUnsealed or ErrTampered when it fails. It says nothing
// about whether r's objects are those of its plan; callers that apply them
// check that too.
func (r *Revision) Verify(key []byte) error {
	if r.Seal == "" {
		return fmt.Errorf("revision %d: %w", r.Number, ErrUnsealed)
	}
	want, err := sealOf(key, *r)
	if err != nil {
		return err
	}
	if !digest.Equal(want, r.Seal) {
		return fmt.Errorf("revision %d: %w", r.Number, ErrTampered)
	}
	return nil
}
