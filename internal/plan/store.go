package plan

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/digest"
	"github.com/pynenc/piceli/internal/parallel"
	"github.com/pynenc/piceli/internal/statedir"
)

// ErrUnknown is returned when no stored plan has the requested hash.
var ErrUnknown = errors.New("no such plan")

// Dir is where plans are stored under a release's state directory.
func Dir(stateDir string) string { return statedir.Path(stateDir, statedir.Plans) }

// Save stores p under stateDir/plans/<hex>.json, atomically and owner-only,
// sets p.Hash and the seals of p and its steps (Load checks them), and
// returns the hash. It seals with the release's stored digest key, which
// must be the key p was made with (StoreKey it first), or the plan can
// never be applied; with no key stored, it stores a fresh one.
func Save(stateDir string, p *Plan) (string, error) {
	ms, err := manifestsOf(p)
	if err != nil {
		return "", fmt.Errorf("encode plan: %w", err)
	}
	hash, err := hashWith(p, ms)
	if err != nil {
		return "", err
	}
	s, err := storedSealer(stateDir)
	if err != nil {
		return "", err
	}
	p.Hash = hash
	s.seal(p, ms)
	data, err := json.Marshal(wired(p, ms)) // compact: a no-op apply reads it whole
	if err != nil {
		return "", fmt.Errorf("encode plan: %w", err)
	}
	if err := atomicfile.MkdirPrivate(Dir(stateDir)); err != nil {
		return "", fmt.Errorf("store plan: %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.Write(file(stateDir, hash), data, 0o600); err != nil {
		return "", err
	}
	if !s.desiredMatch(p, ms) {
		return hash, nil // no file seal: Load checks it in full, and refuses it
	}
	return hash, s.storeFileSeal(stateDir, hash, data)
}

// fileSealInfo names what the file seal key is derived for.
const fileSealInfo = "piceli plan file seal v1"

// fileSeal is the keyed digest of a plan file's exact bytes and the hash it
// is stored under, under a key derived for nothing else. Only a holder of
// the digest key makes one, as for a plan's own seals, and it covers every
// byte of the file, so a file it matches is the file Save wrote: loading it
// then needs neither the hash computed again nor the seals checked, which
// both encode the whole plan anew (most of what loading a large plan
// costs).
func fileSeal(digestKey []byte, full string, data []byte) (string, error) {
	key, err := digest.SealKey(digestKey, fileSealInfo)
	if err != nil {
		return "", err
	}
	return digest.Fields(key, []byte(full), data), nil
}

func fileSealPath(stateDir, hash string) string {
	return filepath.Join(statedir.Path(stateDir, statedir.PlanFiles), strings.TrimPrefix(hash, "sha256:"))
}

// storeFileSeal records the file seal of the plan file data just stored
// under hash. It is this machine's alone (statedir.PlanFiles): a plan that
// arrives with the cluster's state is checked in full.
func (s sealer) storeFileSeal(stateDir, hash string, data []byte) error {
	seal, err := fileSeal(s.dig.Key, hash, data)
	if err != nil {
		return err
	}
	if err := atomicfile.MkdirPrivate(statedir.Path(stateDir, statedir.PlanFiles)); err != nil {
		return fmt.Errorf("store plan: %w", err)
	}
	return atomicfile.Write(fileSealPath(stateDir, hash), []byte(seal), 0o600)
}

// sealedFile reports whether data, read from the plan file of full, is
// the very file Save stored there on this machine under the release's
// current digest key. Any doubt (no seal, an unreadable key, a mismatch)
// answers false, and the plan is checked in full.
func sealedFile(stateDir, full string, data []byte) bool {
	stored, err := statedir.ReadFile(fileSealPath(stateDir, full))
	if err != nil || len(stored) > 128 {
		return false
	}
	key, err := loadKey(stateDir)
	if err != nil {
		return false
	}
	want, err := fileSeal(key, full, data)
	return err == nil && digest.Equal(string(stored), want)
}

// storedSealer returns the sealer of the release's stored digest key,
// storing a fresh key first when there is none.
func storedSealer(stateDir string) (sealer, error) {
	key, err := ReadKey(stateDir)
	if err != nil {
		return sealer{}, err
	}
	if err := StoreKey(stateDir, key); err != nil {
		return sealer{}, err
	}
	return newSealer(key)
}

func file(stateDir, hash string) string {
	return filepath.Join(Dir(stateDir), strings.TrimPrefix(hash, "sha256:")+".json")
}

// Load reads the stored plan whose hash is hash, or starts with it when
// that prefix (at least 12 hex digits) names exactly one plan. The plan's
// content is checked against its hash, and against the seal Save made with
// the release's stored digest key: an edit anywhere, re-hashed and renamed
// or not, is an error naming each step it touched. A plan stored without a
// seal (by an older Piceli) is refused too: plan again.
func Load(stateDir, hash string) (*Plan, string, error) {
	full, data, err := readStored(stateDir, hash)
	if err != nil {
		return nil, "", err
	}
	p, err := checked(stateDir, full, data)
	if err != nil {
		return nil, "", fmt.Errorf("load plan %s: %w", ShortHash(full), err)
	}
	return p, full, nil
}

// checked decodes the file data of plan full as Load does: quickly when
// this machine sealed it, else checked against its hash and seal.
func checked(stateDir, full string, data []byte) (*Plan, error) {
	if sealedFile(stateDir, full, data) {
		return decodeSealed(data, true)
	}
	p, ms, err := decode(data, full)
	if err == nil {
		err = unseal(stateDir, p, ms)
	}
	return p, err
}

// decodeSealed decodes a plan file whose seal matched: as json.Unmarshal
// would, but with the steps' manifests, most of a large plan, decoded on
// every core, or, without manifests, left out (each Step.Manifest nil).
func decodeSealed(data []byte, manifests bool) (*Plan, error) {
	var lean struct {
		Plan
		Steps []struct {
			Step
			Manifest json.RawMessage `json:"manifest"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &lean); err != nil {
		return nil, err
	}
	p := lean.Plan
	p.Steps = make([]Step, len(lean.Steps))
	errs := make([]error, len(lean.Steps))
	parallel.Each(len(lean.Steps), 64, func(i int) {
		p.Steps[i] = lean.Steps[i].Step
		if raw := lean.Steps[i].Manifest; manifests && raw != nil {
			errs[i] = json.Unmarshal(raw, &p.Steps[i].Manifest)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &p, nil
}

// LoadSteps is Load for a caller that reads a plan's steps but none of
// their manifests (a release's records: what it owns and left settled).
// Every Step.Manifest of the plan it returns is nil. A file this machine
// sealed when it saved it (see Save) is decoded without building its
// manifests, which is most of a large plan's decoding; any other file takes
// Load's full check first.
func LoadSteps(stateDir, hash string) (*Plan, string, error) {
	full, data, err := readStored(stateDir, hash)
	if err != nil {
		return nil, "", err
	}
	var p *Plan
	if sealedFile(stateDir, full, data) {
		p, err = decodeSealed(data, false)
	} else if p, err = checked(stateDir, full, data); err == nil {
		for i := range p.Steps {
			p.Steps[i].Manifest = nil
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("load plan %s: %w", ShortHash(full), err)
	}
	return p, full, nil
}

// readStored resolves hash (a prefix of at least 12 hex digits) to the
// plan it names and reads that plan's file.
func readStored(stateDir, hash string) (string, []byte, error) {
	full, err := resolve(stateDir, hash)
	if err != nil {
		return "", nil, err
	}
	data, err := statedir.ReadFile(file(stateDir, full))
	if err != nil {
		return "", nil, fmt.Errorf("load plan %s: %w", ShortHash(full), err)
	}
	return full, data, nil
}

// decode decodes a stored plan's bytes, checking them against its hash
// full, and returns it with its manifests encoded (manifestsOf).
func decode(data []byte, full string) (*Plan, []json.RawMessage, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, err
	}
	ms, err := manifestsOf(&p)
	if err != nil {
		return nil, nil, err
	}
	if got, _ := hashWith(&p, ms); got != full {
		return nil, nil, errors.New("content does not match its hash (file edited?)")
	}
	return &p, ms, nil
}

// unseal checks p, whose manifests ms holds encoded, against its seal
// under the release's stored digest key.
func unseal(stateDir string, p *Plan, ms []json.RawMessage) error {
	key, err := loadKey(stateDir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no digest key %s to check its seal with; plan again and approve the new hash", keyFile(stateDir))
	}
	if err != nil {
		return err
	}
	s, err := newSealer(key)
	if err != nil {
		return err
	}
	if err := s.verify(p, ms); err != nil {
		return fmt.Errorf("%w; plan again and approve the new hash", err)
	}
	return nil
}

// ErrBadHash marks a plan hash that is not one: ParseHash takes only 12 to
// 64 lower-case hex digits, after an optional "sha256:".
var ErrBadHash = errors.New("want 12 to 64 lower-case hex digits of a plan hash")

// ParseHash returns the hex digits of hash, a plan hash or its first
// digits as a person approves it: an optional "sha256:", then 12 to 64
// lower-case hex digits and nothing else. Glob and path characters, upper
// case, fewer or more digits are an error wrapping ErrBadHash that quotes
// hash, so no approval can match a plan by pattern or name a file outside
// the plan store.
func ParseHash(hash string) (string, error) {
	hex := strings.TrimPrefix(hash, "sha256:")
	if len(hex) < 12 || len(hex) > 64 || strings.IndexFunc(hex, notLowerHex) >= 0 {
		return "", fmt.Errorf("plan hash %s: %w (optionally after \"sha256:\")", quoted(hash), ErrBadHash)
	}
	return hex, nil
}

func notLowerHex(r rune) bool { return (r < '0' || r > '9') && (r < 'a' || r > 'f') }

// quoted quotes a hash as given for an error, cut after 80 bytes.
func quoted(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%q...", s[:80])
	}
	return fmt.Sprintf("%q", s)
}

// resolve returns the full hash of the one stored plan whose hash starts
// with hash (ParseHash), comparing the names of the store's plan files as
// strings: no pattern is ever matched against the file system.
func resolve(stateDir, hash string) (string, error) {
	hex, err := ParseHash(hash)
	if err != nil {
		return "", err
	}
	stored, err := List(stateDir)
	if err != nil {
		return "", err
	}
	var matches []string
	for _, p := range stored {
		if strings.HasPrefix(strings.TrimPrefix(p.Hash, "sha256:"), hex) {
			matches = append(matches, p.Hash)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("plan %s: %w in %s", hash, ErrUnknown, Dir(stateDir))
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("plan hash %q is ambiguous: %d plans start with it", hash, len(matches))
}

// ReadKey returns the release's digest key from stateDir/keys/digest, or a
// fresh random key when there is none yet. Nothing is written: StoreKey
// persists a fresh key when a plan made with it is stored.
func ReadKey(stateDir string) ([]byte, error) {
	key, err := loadKey(stateDir)
	if !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	key = make([]byte, 32)
	rand.Read(key)
	return key, nil
}

// loadKey returns the stored digest key; an error wrapping os.ErrNotExist
// when there is none.
func loadKey(stateDir string) ([]byte, error) {
	key, err := statedir.ReadFile(keyFile(stateDir))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("read digest key: %w", err)
	case len(key) != 32:
		return nil, fmt.Errorf("digest key %s has %d bytes, want 32: restore it from a backup or remove it (stored plans then go stale)", keyFile(stateDir), len(key))
	}
	return key, nil
}

// StoreKey persists key as the release's digest key, owner-only, unless it
// is stored already. A different stored key is an error.
func StoreKey(stateDir string, key []byte) error {
	have, err := statedir.ReadFile(keyFile(stateDir))
	if err == nil {
		if !bytes.Equal(have, key) {
			return fmt.Errorf("digest key %s changed while planning", keyFile(stateDir))
		}
		return nil
	}
	if err := atomicfile.MkdirPrivate(filepath.Dir(keyFile(stateDir))); err != nil {
		return fmt.Errorf("store digest key: %w", err)
	}
	return atomicfile.Write(keyFile(stateDir), key, 0o600)
}

func keyFile(stateDir string) string { return statedir.Path(stateDir, statedir.DigestKey) }

// Stored is a plan in a release's store: its hash and when it was stored.
type Stored struct {
	Hash string
	Time time.Time
}

// List returns the stored plans, oldest first. A plan's time is its file's
// modification time: Save records no time in the plan (it would enter the
// hash or change the document), and writes the file whole, so the time is
// when the plan was last stored. Equal times are ordered by hash. A state
// directory without plans holds none. List neither reads nor verifies the
// plans, and it skips files that are not named like a stored plan.
func List(stateDir string) ([]Stored, error) {
	names, err := statedir.List(Dir(stateDir), statedir.Files, func(name string) bool {
		hex, ok := strings.CutSuffix(name, ".json")
		return ok && isHex64(hex)
	})
	if err != nil {
		return nil, fmt.Errorf("list plans: %w", err)
	}
	var out []Stored
	for _, name := range names {
		info, err := os.Lstat(filepath.Join(Dir(stateDir), name))
		if err != nil {
			return nil, fmt.Errorf("list plans: %w", err)
		}
		out = append(out, Stored{Hash: "sha256:" + strings.TrimSuffix(name, ".json"), Time: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b Stored) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Hash, b.Hash))
	})
	return out, nil
}

// Remove deletes the stored plan whose full hash is hash and makes the
// deletion durable. A plan that is not stored is no error. It does not
// check whether anything still needs the plan: retention decides that.
func Remove(stateDir, hash string) error {
	hex := strings.TrimPrefix(hash, "sha256:")
	if !isHex64(hex) {
		return fmt.Errorf("remove plan %q: not a full plan hash", hash)
	}
	if err := os.Remove(fileSealPath(stateDir, hash)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove plan %s: %w", ShortHash(hash), err)
	}
	err := os.Remove(file(stateDir, hash))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove plan %s: %w", ShortHash(hash), err)
	}
	return atomicfile.SyncDir(Dir(stateDir))
}

// isHex64 reports whether s is 64 lowercase hex digits, as a SHA-256 in a
// plan's file name is.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
