package signer

import (
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefix starts the public key of every signer line: the algorithm.
const Prefix = "ed25519:"

// Signer is a public key trusted to sign shared state, with the name a
// person gave it (whose machine or runner holds the private key). Its line
// form, as [release] state_signers lists it, is "ed25519:<base64 of the
// 32-byte public key> NAME".
type Signer struct {
	Key  ed25519.PublicKey
	Name string
}

// ID is the signer's public key as a line starts with it:
// "ed25519:<base64>". Manifests record who signed by this ID.
func (s Signer) ID() string { return Prefix + base64.StdEncoding.EncodeToString(s.Key) }

// String is the signer's line: its ID, a space and its name.
func (s Signer) String() string { return s.ID() + " " + s.Name }

// Parse reads a signer line. The key must be base64 of exactly 32 bytes
// after "ed25519:"; the name (after one or more spaces) must not be empty
// and holds no control characters. Parse never echoes more of the line
// than the part it names in its error.
func Parse(line string) (Signer, error) {
	id, name, _ := strings.Cut(strings.TrimSpace(line), " ")
	key, err := ParseID(id)
	if err != nil {
		return Signer{}, err
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return Signer{}, errors.New(`no name after the key: write "ed25519:<key> NAME", NAME saying whose key it is`)
	case len(name) > 200 || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return Signer{}, errors.New("the name must be at most 200 bytes of UTF-8 without control characters")
	}
	return Signer{Key: key, Name: name}, nil
}

// ParseID reads a public key written as "ed25519:<base64 of 32 bytes>".
func ParseID(id string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(id, Prefix)
	if !ok {
		return nil, fmt.Errorf("the key must start with %q", Prefix)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("the key after %q must be standard base64 of %d bytes", Prefix, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(key), nil
}

// Find returns the signer of signers whose public key is key, and whether
// there is one.
func Find(signers []Signer, key ed25519.PublicKey) (Signer, bool) {
	for _, s := range signers {
		if len(s.Key) == len(key) && subtle.ConstantTimeCompare(s.Key, key) == 1 {
			return s, true
		}
	}
	return Signer{}, false
}
