package chart

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"sync"
	"text/template"

	"github.com/pynenc/piceli/internal/secret"
)

// SeedSize is the least number of bytes a seed must have.
const SeedSize = 32

// maxRandom bounds what one call of a random function makes, in
// characters or bytes.
const maxRandom = 1 << 16

// Seeded are the template functions that draw from the release's seed
// (Options.Seed) instead of fresh randomness, so the same release renders
// the same values every time. Their results are those of sprig's
// functions of the same names in form (alphabet, length, encoding).
var Seeded = []string{"randAlphaNum", "randAlpha", "randNumeric", "randAscii", "randBytes", "randInt", "uuidv4", "shuffle"}

// Refused are the template functions a chart may not call: they draw
// fresh randomness Piceli cannot replay from a seed (keys and certificates
// from Go's crypto, salts, initialisation vectors) or read the clock, so
// the release would differ on every plan. Rendering one is a refusal
// naming the chart, template and function.
var Refused = []string{
	"genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "bcrypt", "htpasswd", "encryptAES", "now", "ago",
}

// alphabets of sprig's random string functions.
const (
	upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
	letters = upper + lower
)

// printable is randAscii's alphabet: the printable ASCII characters,
// space to tilde.
var printable = func() string {
	b := make([]byte, 0, 95)
	for c := byte(' '); c <= '~'; c++ {
		b = append(b, c)
	}
	return string(b)
}()

// randomness gives each call of a seeded function its own stream: a
// ChaCha8 generator keyed by HMAC-SHA256 of the seed over the release,
// chart, function, arguments and how many times the chart called the
// function with those arguments before. Without the seed no value can be
// derived from these public inputs. A nil seed draws from crypto/rand.
type randomness struct {
	seed  []byte
	scope string // release and chart
	mu    sync.Mutex
	calls map[string]int
}

func newRandomness(seed []byte, release, chart string) *randomness {
	return &randomness{seed: seed, scope: release + "\x00" + chart, calls: map[string]int{}}
}

// stream returns the generator of one call of fn with args.
func (r *randomness) stream(fn string, args ...any) io.Reader {
	if r.seed == nil {
		return rand.Reader
	}
	a, _ := json.Marshal(args)
	id := fn + "\x00" + string(a)
	r.mu.Lock()
	n := r.calls[id]
	r.calls[id] = n + 1
	r.mu.Unlock()
	mac := hmac.New(sha256.New, r.seed)
	fmt.Fprintf(mac, "piceli chart random v1\x00%s\x00%s\x00%d", r.scope, id, n)
	var key [32]byte
	copy(key[:], mac.Sum(nil))
	return mrand.NewChaCha8(key)
}

// funcs are the seeded and refused template functions.
func (r *randomness) funcs() template.FuncMap {
	f := template.FuncMap{
		"randAlphaNum": func(n int) (string, error) { return r.text("randAlphaNum", letters+digits, n) },
		"randAlpha":    func(n int) (string, error) { return r.text("randAlpha", letters, n) },
		"randNumeric":  func(n int) (string, error) { return r.text("randNumeric", digits, n) },
		"randAscii":    func(n int) (string, error) { return r.text("randAscii", printable, n) },
		"randBytes":    r.bytes,
		"randInt":      r.integer,
		"uuidv4":       r.uuid,
		"shuffle":      r.shuffle,
	}
	for _, name := range Refused {
		f[name] = refused(name)
	}
	return f
}

// refused is a template function that fails, saying why and what to do.
func refused(name string) func(...any) (any, error) {
	return func(...any) (any, error) {
		return nil, fmt.Errorf("Piceli refuses %s: it gives a new result on every render, so no plan of the release could be approved twice; set the value in the chart's values (for a key or certificate, declare it as a Piceli secret and pass its name) instead", name)
	}
}

// text returns n characters drawn uniformly from alphabet.
func (r *randomness) text(fn, alphabet string, n int) (string, error) {
	if n < 0 || n > maxRandom {
		return "", fmt.Errorf("%s %d: the length must be 0 to %d", fn, n, maxRandom)
	}
	src := r.stream(fn, n)
	out := make([]byte, n)
	for i := range out {
		k, err := secret.Uniform(src, len(alphabet))
		if err != nil {
			return "", err
		}
		out[i] = alphabet[k]
	}
	return string(out), nil
}

// bytes returns n random bytes, base64-encoded, as sprig's randBytes.
func (r *randomness) bytes(n int) (string, error) {
	if n < 0 || n > maxRandom {
		return "", fmt.Errorf("randBytes %d: the count must be 0 to %d", n, maxRandom)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.stream("randBytes", n), buf); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf), nil
}

// integer returns a number in [lo, hi), as sprig's randInt.
func (r *randomness) integer(lo, hi int) (int, error) {
	if hi <= lo || uint64(hi-lo) > 1<<32 {
		return 0, fmt.Errorf("randInt %d %d: the range must be non-empty and at most 2^32 wide", lo, hi)
	}
	k, err := secret.Uniform(r.stream("randInt", lo, hi), hi-lo)
	return lo + k, err
}

// uuid returns a random (version 4) UUID.
func (r *randomness) uuid() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r.stream("uuidv4"), b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// shuffle returns the characters of s in a random order.
func (r *randomness) shuffle(s string) (string, error) {
	runes := []rune(s)
	if len(runes) > maxRandom {
		return "", fmt.Errorf("shuffle: the string is longer than %d characters", maxRandom)
	}
	src := r.stream("shuffle", s)
	for i := len(runes) - 1; i > 0; i-- {
		j, err := secret.Uniform(src, i+1)
		if err != nil {
			return "", err
		}
		runes[i], runes[j] = runes[j], runes[i]
	}
	return string(runes), nil
}
