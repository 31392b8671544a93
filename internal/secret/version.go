package secret

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/digest"
)

// Version is one immutable set of a secret's values. Its exported fields
// are metadata safe to print, log or marshal; the values are reachable only
// through Values, and formatting a Version with any verb prints Show.
type Version struct {
	Secret  string       `json:"secret"`
	Number  int          `json:"number"`
	Created time.Time    `json:"created"`
	Keys    []KeyVersion `json:"keys"` // sorted by Key
	values  map[string][]byte
}

// KeyVersion is one key of a Version and the fingerprint of the source its
// value came from: a non-secret description (source kind, reference,
// length, alphabet, hosts), so a changed declaration is noticed.
type KeyVersion struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
}

// Values returns a copy of the version's values by key. Never print it.
func (v *Version) Values() map[string][]byte {
	out := make(map[string][]byte, len(v.values))
	for k, val := range v.values {
		out[k] = bytes.Clone(val)
	}
	return out
}

// Format prints Show(v) whatever the verb, so %v, %+v and %#v of a
// Version never print its values.
func (v Version) Format(f fmt.State, _ rune) {
	fmt.Fprint(f, Show(&v))
}

// Show describes v by metadata only: its secret, number, creation time and
// each key with its fingerprint. It never shows a value.
func Show(v *Version) string {
	if v == nil {
		return "no version"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "secret %s version %d created %s", v.Secret, v.Number, v.Created.UTC().Format(time.RFC3339))
	for _, k := range v.Keys {
		fmt.Fprintf(&b, "\n  %s: %s", k.Key, k.Fingerprint)
	}
	return b.String()
}

// Digest returns the keyed digest under key ("hmac-sha256:" and hex, see
// digest.Fields) of v's keys and values in key order, each length-prefixed,
// for pod-template annotations that roll workloads when a value changes.
// Fingerprints and version numbers do not enter it: equal values give
// equal digests. A nil v digests no values.
func Digest(key []byte, v *Version) string {
	vals := valuesOf(v)
	fields := make([][]byte, 0, 2*len(vals))
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		fields = append(fields, []byte(k), vals[k])
	}
	return digest.Fields(key, fields...)
}

// ChangedKeys returns, sorted, the keys whose value was added, removed or
// changed from old to new. A nil version has no keys. A changed
// fingerprint alone (a moved file with the same content) is not a change.
func ChangedKeys(old, new *Version) []string {
	a, b := valuesOf(old), valuesOf(new)
	var changed []string
	for k, va := range a {
		if vb, ok := b[k]; !ok || !bytes.Equal(va, vb) {
			changed = append(changed, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	return changed
}

func valuesOf(v *Version) map[string][]byte {
	if v == nil {
		return nil
	}
	return v.values
}

// same reports whether a and b hold the same keys, fingerprints and values.
func same(a, b *Version) bool {
	return slices.Equal(a.Keys, b.Keys) && len(ChangedKeys(a, b)) == 0
}

// kept returns the value of key in v when its fingerprint is still fp.
func (v *Version) kept(key, fp string) ([]byte, bool) {
	if v == nil {
		return nil, false
	}
	i := slices.IndexFunc(v.Keys, func(k KeyVersion) bool { return k.Key == key })
	if i < 0 || v.Keys[i].Fingerprint != fp {
		return nil, false
	}
	val, ok := v.values[key]
	return val, ok
}
