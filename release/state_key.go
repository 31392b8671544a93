package release

import (
	"fmt"

	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/internal/state"
)

// StateKey is this machine's state signing key as a person handles it:
// the file holding the private key, and the line to paste into
// [release] state_signers of every release this machine writes.
type StateKey struct {
	File string `json:"file"`
	// Signer is "ed25519:<base64 of the public key> NAME".
	Signer string `json:"signer"`
	// Created says the key was made by this call.
	Created bool `json:"created"`
}

// MachineStateKey returns this machine's state signing key, creating it
// when there is none: in file, or when file is empty $PICELI_STATE_KEY_FILE
// or <user config dir>/piceli/state-signing.key (owner-only, in a 0700
// directory). name names the signer line; empty means user@host. A key
// file open to group or others, not a regular file or not a key is
// refused (refusal.Is) and left as it is.
func MachineStateKey(file, name string) (*StateKey, error) {
	path, err := keyFile(file)
	if err != nil {
		return nil, refuse(err)
	}
	k, created, err := signer.LoadOrCreate(path)
	if err != nil {
		return nil, refuse(err)
	}
	if name == "" {
		name = signer.DefaultName()
	}
	line := k.Signer(name)
	if _, err := signer.Parse(line.String()); err != nil {
		return nil, refusef("state key: name %q: %v", name, err)
	}
	return &StateKey{File: path, Signer: line.String(), Created: created}, nil
}

// keyFile is file, or where this machine's key is by default.
func keyFile(file string) (string, error) {
	if file != "" {
		return file, nil
	}
	return signer.File()
}

// stateKey loads this machine's signing key for a push and checks that
// the spec's state_signers trust it, so that a machine that may not write
// the state is refused before it writes anything (refusal.Is, naming
// its public key).
func (r *Release) stateKey() (*signer.Key, error) {
	path, err := keyFile(r.opts.StateKeyFile)
	if err != nil {
		return nil, refuse(err)
	}
	k, err := signer.Load(path)
	if err != nil {
		return nil, refuse(fmt.Errorf("release %s shares its state, whose writers sign it: %w; then add its line to [release] state_signers", r.Name(), err))
	}
	if _, ok := signer.Find(r.spec.Release.StateSigners, k.Public()); !ok {
		return nil, refuse(fmt.Errorf("release %s: this machine's state signing key %s (%s) is not in [release] state_signers of %s, so it may not write the release's state; add the line %q there: %w",
			r.Name(), k.Signer("").ID(), path, r.spec.Path, k.Signer(signer.DefaultName()).String(), state.ErrUntrusted))
	}
	return k, nil
}

// checkWriter refuses, before anything is written, a command that would
// push a shared release's state from a machine whose key may not sign it.
// A local release needs no key.
func (r *Release) checkWriter() error {
	if !r.sharesState() {
		return nil
	}
	_, err := r.stateKey()
	return err
}
