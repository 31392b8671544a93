package artifact

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Pull fetches from a registry the manifest that ref ("HOST:PORT/REPO@
// sha256:...") pins by digest, through the same transport a push uses
// (no proxy) and the same rules: plain HTTP only to loopback or when
// o.Insecure is set, credentials from o. A reference by tag is refused
// (refusal.Is): what is pulled must be what was named. Blobs are fetched
// when the returned image's layers are read, each checked against its
// digest. o.Address, o.ViaForward and o.Tag are ignored.
func Pull(ctx context.Context, ref string, o RegistryOptions) (v1.Image, error) {
	d, err := name.NewDigest(ref, name.StrictValidation)
	if err != nil {
		return nil, refusedf("pull %s: want a reference pinned by digest, HOST:PORT/REPO@sha256:DIGEST (a tag may move)", ref)
	}
	if o.Insecure || isLoopback(d.RegistryStr()) {
		if d, err = name.NewDigest(ref, name.StrictValidation, name.Insecure); err != nil {
			return nil, err
		}
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithTransport(loopbackSafeTransport())}
	if o.Username != "" {
		opts = append(opts, remote.WithAuth(authn.FromConfig(authn.AuthConfig{Username: o.Username, Password: o.Password})))
	}
	img, err := remote.Image(d, opts...)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %s", ref, newRedactor(o.Password).clean(err.Error()))
	}
	return img, nil
}
