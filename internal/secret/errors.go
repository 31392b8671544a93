package secret

import (
	"errors"
	"fmt"
)

// ErrSource marks a secret source that cannot be resolved because of its
// input: a missing file or unset variable, an absent cluster Secret, or a
// malformed declaration. Callers treat it as bad input (exit 2, no plan).
var ErrSource = errors.New("secret source")

// ErrNoCluster marks a "cluster" source resolved without a cluster to
// import from (Resolver.ReadCluster is nil).
var ErrNoCluster = errors.New("a cluster is needed to import this value")

// keyError says which secret, and key if any, a problem belongs to. Its
// message never carries a value: every cause is built from names and
// references.
type keyError struct {
	secret, key string
	err         error
	source      bool // the cause is bad input: wrap ErrSource too
}

func (e *keyError) Error() string {
	if e.key == "" {
		return fmt.Sprintf("secret %q: %v", e.secret, e.err)
	}
	return fmt.Sprintf("secret %q key %q: %v", e.secret, e.key, e.err)
}

func (e *keyError) Unwrap() []error {
	if e.source {
		return []error{ErrSource, e.err}
	}
	return []error{e.err}
}

// sourceErr returns an ErrSource error for key of secret; an empty key
// means the secret as a whole.
func sourceErr(secret, key string, err error) error {
	return &keyError{secret: secret, key: key, err: err, source: true}
}
