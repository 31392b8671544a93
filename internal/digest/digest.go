package digest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sync"
	"sync/atomic"
)

// Prefix names the algorithm at the start of every digest, so a stored
// digest says how it was made.
const Prefix = "hmac-sha256:"

// Of returns Prefix followed by the hex HMAC-SHA256 of data under key.
// Keyed, a digest cannot be guessed by hashing candidate values without
// the key. It is the one place Piceli computes a keyed digest.
func Of(key, data []byte) string {
	p := macsFor(key)
	m := p.Get().(hash.Hash)
	m.Reset()
	m.Write(data)
	var sum [sha256.Size]byte
	out := Prefix + hex.EncodeToString(m.Sum(sum[:0]))
	p.Put(m)
	return out
}

// keyedMACs pools the HMACs of one key: setting one up hashes the key's
// two pads, as much work as digesting a small manifest, and a plan digests
// thousands under the same key.
type keyedMACs struct {
	key  []byte
	pool sync.Pool
}

// lastMACs holds the pool of the key Of used last. One key at a time: a
// process digests under its release's key; one that moves between keys
// (the controller) makes a new pool and lets the old one go.
var lastMACs atomic.Pointer[keyedMACs]

// macsFor returns the pool of HMACs under key.
func macsFor(key []byte) *sync.Pool {
	if k := lastMACs.Load(); k != nil && subtle.ConstantTimeCompare(k.key, key) == 1 {
		return &k.pool
	}
	k := &keyedMACs{key: bytes.Clone(key)}
	k.pool.New = func() any { return hmac.New(sha256.New, k.key) }
	lastMACs.Store(k)
	return &k.pool
}

// Fields returns the digest (as Of) of fields in order, each preceded by
// its length as 8 bytes big-endian, so that no two different sequences of
// fields digest alike ("ab","c" and "a","bc" differ).
func Fields(key []byte, fields ...[]byte) string {
	var framed []byte
	for _, f := range fields {
		framed = binary.BigEndian.AppendUint64(framed, uint64(len(f)))
		framed = append(framed, f...)
	}
	return Of(key, framed)
}
