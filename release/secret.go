package release

import (
	"context"

	"github.com/pynenc/piceli/internal/secret"
)

// SecretVersion is one version of a declared secret in the private store.
// Its exported fields are metadata; formatting it with any verb prints a
// description without values; Values returns the values themselves.
type SecretVersion = secret.Version

// SecretVersion loads version n (0: the latest) of the declared secret name
// from the release's private store. An unknown secret or version is a
// refusal. No cluster is contacted, unless the release's state is
// shared: then the state directory is brought up to date from it first.
func (r *Release) SecretVersion(ctx context.Context, name string, n int) (*SecretVersion, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	if err := r.pullState(ctx, nil); err != nil {
		return nil, err
	}
	store := secret.View(r.StateDir())
	if n > 0 {
		v, err := store.Load(name, n)
		return v, refuse(err)
	}
	v, err := store.Latest(name)
	switch {
	case err != nil:
		return nil, refuse(err)
	case v == nil:
		return nil, refusef("secret %q has no versions in %s (plan the release first)", name, r.StateDir())
	}
	return v, nil
}
