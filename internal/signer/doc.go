// Package signer holds the ed25519 keys that sign a release's shared
// state: one machine's private signing key, kept in an owner-only file,
// and the public signer lines ("ed25519:<base64> NAME") a spec trusts.
package signer
