package release

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/pynenc/piceli/internal/secret"
)

// Secrets is the release's private store of secret versions: the values
// of its declared secrets, resolved from their sources when a plan first
// needed them, kept owner-only in the state directory. Release.Secrets
// returns it.
type Secrets struct{ r *Release }

// Secrets returns the release's secret store.
func (r *Release) Secrets() *Secrets { return &Secrets{r: r} }

// SecretVersion is one immutable version of a declared secret. Its exported
// fields are metadata, safe to print, log or marshal; formatting it with
// any verb prints a description without values; Values returns the values
// themselves.
type SecretVersion struct {
	Secret  string      `json:"secret"`
	Number  int         `json:"number"`
	Created time.Time   `json:"created"`
	Keys    []SecretKey `json:"keys"` // sorted by Key
	values  map[string][]byte
}

// SecretKey is one key of a SecretVersion and the fingerprint of the
// source its value came from: a digest of a non-secret description (source
// kind, reference, length, alphabet, hosts), so a changed declaration is
// noticed.
type SecretKey struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
}

// Values returns a copy of the version's values by key. Never print it.
func (v *SecretVersion) Values() map[string][]byte {
	out := make(map[string][]byte, len(v.values))
	for k, val := range v.values {
		out[k] = bytes.Clone(val)
	}
	return out
}

// Format prints the version's metadata whatever the verb, so %v, %+v and
// %#v of a SecretVersion never print its values.
func (v SecretVersion) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "secret %s version %d created %s", v.Secret, v.Number, v.Created.UTC().Format(time.RFC3339))
	for _, k := range v.Keys {
		fmt.Fprintf(f, "\n  %s: %s", k.Key, k.Fingerprint)
	}
}

// SecretVersionSchema versions the document of a SecretVersion.
const SecretVersionSchema = "piceli.secret-version/v1"

// SecretVersionDoc is a SecretVersion's metadata as one versioned
// document: its number, creation time, and key names with the
// fingerprints of their sources. It has no field for a value.
type SecretVersionDoc struct {
	Schema  string      `json:"schema"` // SecretVersionSchema
	Secret  string      `json:"secret"`
	Number  int         `json:"number"`
	Created time.Time   `json:"created"`
	Keys    []SecretKey `json:"keys"` // sorted by Key
}

// Doc returns v's metadata as a versioned document, without its values.
func (v *SecretVersion) Doc() SecretVersionDoc {
	keys := v.Keys
	if keys == nil {
		keys = []SecretKey{}
	}
	return SecretVersionDoc{Schema: SecretVersionSchema, Secret: v.Secret, Number: v.Number, Created: v.Created, Keys: keys}
}

// versionOf is a store version as users read it.
func versionOf(v *secret.Version) *SecretVersion {
	out := &SecretVersion{Secret: v.Secret, Number: v.Number, Created: v.Created, values: v.Values()}
	for _, k := range v.Keys {
		out.Keys = append(out.Keys, SecretKey(k))
	}
	return out
}

// Version loads version n (0: the latest) of the declared secret name
// from the release's private store. An unknown secret or version is a
// refusal. No cluster is contacted, unless the release's state is
// shared: then the state directory is brought up to date from it first.
func (sec *Secrets) Version(ctx context.Context, name string, n int) (*SecretVersion, error) {
	r := sec.r
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	if err := r.pullState(ctx, nil); err != nil {
		return nil, err
	}
	store := secret.View(r.StateDir())
	if n > 0 {
		v, err := store.Load(name, n)
		if err != nil {
			return nil, refuse(err)
		}
		return versionOf(v), nil
	}
	v, err := store.Latest(name)
	switch {
	case err != nil:
		return nil, refuse(err)
	case v == nil:
		return nil, refusef("secret %q has no versions in %s (plan the release first)", name, r.StateDir())
	}
	return versionOf(v), nil
}
