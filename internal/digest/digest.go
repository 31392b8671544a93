package digest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// Prefix names the algorithm at the start of every digest, so a stored
// digest says how it was made.
const Prefix = "hmac-sha256:"

// Of returns Prefix followed by the hex HMAC-SHA256 of data under key.
// Keyed, a digest cannot be guessed by hashing candidate values without
// the key. It is the one place Piceli computes a keyed digest.
func Of(key, data []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return Prefix + hex.EncodeToString(m.Sum(nil))
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
