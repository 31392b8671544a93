// Package secret resolves declared secret sources into private, versioned values kept in an owner-only store.
package secret
