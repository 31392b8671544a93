package secret

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/pynenc/piceli/internal/wire"
)

// generate makes a "generated" value: length characters drawn uniformly
// from the distinct characters of the alphabet.
func (r *Resolver) generate(secret string, k wire.SecretKeyInfo) ([]byte, error) {
	length, alphabet := generatedShape(k)
	chars := distinct(alphabet)
	if length < 1 || length > 4096 || len(chars) < 2 {
		return nil, sourceErr(secret, k.Key, fmt.Errorf("generated length %d or alphabet of %d distinct characters out of range", length, len(chars)))
	}
	src := bufio.NewReader(r.random())
	out := make([]rune, length)
	for i := range out {
		n, err := Uniform(src, len(chars))
		if err != nil {
			return nil, &keyError{secret: secret, key: k.Key, err: fmt.Errorf("generate: %w", err)}
		}
		out[i] = chars[n]
	}
	return []byte(string(out)), nil
}

// Uniform returns a number in [0, n) read from src without modulo bias:
// 32-bit draws at or above the largest multiple of n are rejected and
// drawn again. Generated secrets and charts' seeded random functions both
// draw with it.
func Uniform(src io.Reader, n int) (int, error) {
	limit := (1 << 32) - (1<<32)%uint64(n)
	var b [4]byte
	for {
		if _, err := io.ReadFull(src, b[:]); err != nil {
			return 0, err
		}
		if x := uint64(binary.BigEndian.Uint32(b[:])); x < limit {
			return int(x % uint64(n)), nil
		}
	}
}

// distinct returns the alphabet's characters once each, in order.
func distinct(alphabet string) []rune {
	var chars []rune
	for _, c := range alphabet {
		if !slices.Contains(chars, c) {
			chars = append(chars, c)
		}
	}
	return chars
}

func (r *Resolver) random() io.Reader {
	if r.Rand != nil {
		return r.Rand
	}
	return rand.Reader
}
