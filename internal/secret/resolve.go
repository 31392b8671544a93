package secret

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/wire"
)

// Resolver turns secret declarations into versions in its Store. Its zero
// value except Store is usable.
type Resolver struct {
	// Store keeps the versions; required.
	Store *Store
	// BaseDir is what relative "file" sources resolve against: the
	// release.toml directory. Empty means the working directory.
	BaseDir string
	// LookupEnv reads "env" sources; nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// ReadCluster imports "cluster" sources: key of the Secret named secret
	// in the target namespace. It returns an error matching fs.ErrNotExist
	// when the Secret or key is absent (reported as ErrSource), and its
	// errors must not carry values. Nil means no cluster: such sources fail
	// with ErrNoCluster unless their value is already stored.
	ReadCluster func(ctx context.Context, secret, key string) ([]byte, error)
	// Rand is the randomness of generated values; nil means crypto/rand.
	Rand io.Reader
	// Now stamps new versions; nil means time.Now.
	Now func() time.Time
}

// ResolveOptions tune Resolve. The zero value resolves and stores.
type ResolveOptions struct {
	// DryRun resolves without writing: a new version is returned unsaved.
	DryRun bool
}

// Resolve reads the sources of decl and returns the version they give and
// whether it is new. Generated values and cluster imports are kept from the
// latest version while their key's fingerprint is unchanged; files and
// variables are read each time. A new version (latest number + 1) is saved
// only when a key, fingerprint or value differs from the latest; otherwise
// the latest is returned unchanged. With DryRun nothing is written. A
// source that cannot be read is an error matching ErrSource that names the
// secret, key and source, never a value.
func (r *Resolver) Resolve(ctx context.Context, decl wire.SecretInfo, opts ResolveOptions) (*Version, bool, error) {
	if err := checkDecl(decl); err != nil {
		return nil, false, err
	}
	latest, err := r.Store.Latest(decl.Name)
	if err != nil {
		return nil, false, err
	}
	next, err := r.resolve(ctx, decl, latest)
	if err != nil {
		return nil, false, err
	}
	if latest != nil && same(latest, next) {
		return latest, false, nil
	}
	next.Number, next.Created = number(latest)+1, r.now()
	if !opts.DryRun {
		if err := r.Store.save(next); err != nil {
			return nil, false, err
		}
	}
	return next, true, nil
}

// resolve reads every key of decl into an unnumbered version.
func (r *Resolver) resolve(ctx context.Context, decl wire.SecretInfo, latest *Version) (*Version, error) {
	tls, err := r.tlsPair(decl, latest)
	if err != nil {
		return nil, err
	}
	v := &Version{Secret: decl.Name, values: map[string][]byte{}}
	keys := slices.SortedFunc(slices.Values(decl.Keys), func(a, b wire.SecretKeyInfo) int { return strings.Compare(a.Key, b.Key) })
	for _, k := range keys {
		fp := fingerprint(k)
		val, err := r.value(ctx, decl.Name, k, fp, latest, tls)
		if err != nil {
			return nil, err
		}
		v.Keys = append(v.Keys, KeyVersion{Key: k.Key, Fingerprint: fp})
		v.values[k.Key] = val
	}
	return v, nil
}

// value resolves one key; tls holds the secret's TLS pair, if any.
func (r *Resolver) value(ctx context.Context, secret string, k wire.SecretKeyInfo, fp string, latest *Version, tls map[string][]byte) ([]byte, error) {
	switch k.Source {
	case wire.SourceGenerated:
		if val, ok := latest.kept(k.Key, fp); ok {
			return val, nil
		}
		return r.generate(secret, k)
	case wire.SourceGeneratedTLS:
		return tls[k.Key], nil
	case wire.SourceFile:
		return r.readFile(secret, k)
	case wire.SourceEnv:
		return r.lookupEnv(secret, k)
	case wire.SourceCluster:
		if val, ok := latest.kept(k.Key, fp); ok {
			return val, nil
		}
		return r.readCluster(ctx, secret, k)
	}
	return nil, sourceErr(secret, k.Key, fmt.Errorf("unknown source %q", k.Source))
}

func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

func number(v *Version) int {
	if v == nil {
		return 0
	}
	return v.Number
}

// checkDecl refuses a declaration the store cannot hold: a bad name, no
// keys, a key twice, or half a TLS pair.
func checkDecl(decl wire.SecretInfo) error {
	if err := checkName(decl.Name); err != nil {
		return err
	}
	if len(decl.Keys) == 0 {
		return sourceErr(decl.Name, "", errors.New("no keys"))
	}
	seen := map[string]bool{}
	for _, k := range decl.Keys {
		if k.Key == "" || seen[k.Key] {
			return sourceErr(decl.Name, k.Key, errors.New("key empty or declared twice"))
		}
		seen[k.Key] = true
	}
	return checkTLSPair(decl)
}

// lookupEnv reads an "env" source.
func (r *Resolver) lookupEnv(secret string, k wire.SecretKeyInfo) ([]byte, error) {
	lookup := r.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	val, ok := lookup(k.Ref)
	if !ok {
		return nil, sourceErr(secret, k.Key, fmt.Errorf("environment variable %s is not set", k.Ref))
	}
	return []byte(val), nil
}
