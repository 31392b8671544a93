package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/publish"
)

// maxManifestBytes bounds a manifest, as publish does when it reads one.
const maxManifestBytes = 1 << 20

// ociSource follows an artifact written by `piceli publish` in a registry.
type ociSource struct {
	spec     v1alpha1.OCISource
	repo     name.Repository
	selector string // tag, semver or digest
	semver   *semver.Constraints
	auth     authn.Authenticator
	opts     Options
	scrub    scrubber
}

func newOCI(s v1alpha1.OCISource, creds Credentials, opts Options) (*ociSource, error) {
	repo, err := parseOCIURL(s.URL, s.Insecure)
	if err != nil {
		return nil, err
	}
	sel, err := oneSelector("spec.source.oci", map[string]string{"tag": s.Tag, "semver": s.SemVer, "digest": s.Digest})
	if err != nil {
		return nil, err
	}
	o := &ociSource{spec: s, repo: repo, selector: sel, opts: opts, auth: authn.Anonymous}
	switch sel {
	case "tag":
		if _, err := name.NewTag(repo.Name()+":"+s.Tag, name.StrictValidation); err != nil {
			return nil, &SpecError{Field: "spec.source.oci.tag", Reason: "not a valid tag (letters, digits, _ . -, at most 128)"}
		}
	case "semver":
		if o.semver, err = semver.NewConstraint(s.SemVer); err != nil {
			return nil, &SpecError{Field: "spec.source.oci.semver", Reason: "not a semantic version range: " + err.Error()}
		}
	case "digest":
		if !digestRE.MatchString(s.Digest) {
			return nil, &SpecError{Field: "spec.source.oci.digest", Reason: "want sha256: and 64 lowercase hex digits"}
		}
	}
	var secrets []string
	if creds != nil {
		if o.auth, secrets, err = registryAuth(creds, repo.RegistryStr()); err != nil {
			return nil, err
		}
	}
	o.scrub = newScrubber(creds, secrets...)
	return o, nil
}

// remoteOptions are the options of every registry call: the context,
// the credentials and the guarded, bounded transport.
func (o *ociSource) remoteOptions(ctx context.Context) []remote.Option {
	base := o.opts.Transport
	if base == nil {
		base = remote.DefaultTransport
	}
	t := &guardTransport{base: base, insecure: o.spec.Insecure, limit: o.opts.MaxBytes}
	return []remote.Option{remote.WithContext(ctx), remote.WithAuth(o.auth), remote.WithTransport(t)}
}

// Resolve returns the manifest digest the selector names now.
func (o *ociSource) Resolve(ctx context.Context) (Revision, error) {
	switch o.selector {
	case "digest":
		return Revision{ID: o.spec.Digest}, nil
	case "tag":
		d, err := o.tagDigest(ctx, o.spec.Tag)
		return Revision{ID: d, Ref: o.spec.Tag}, o.scrub.wrap(err)
	}
	tag, err := o.highestTag(ctx)
	if err != nil {
		return Revision{}, o.scrub.wrap(err)
	}
	d, err := o.tagDigest(ctx, tag)
	return Revision{ID: d, Ref: tag}, o.scrub.wrap(err)
}

func (o *ociSource) tagDigest(ctx context.Context, tag string) (string, error) {
	ref := o.repo.Tag(tag)
	if desc, err := remote.Head(ref, o.remoteOptions(ctx)...); err == nil {
		return desc.Digest.String(), nil
	}
	// Some registries answer HEAD without the digest: ask with GET.
	desc, err := remote.Get(ref, o.remoteOptions(ctx)...)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", ref, err)
	}
	return desc.Digest.String(), nil
}

// highestTag is the highest tag of the repository that is a semantic
// version within the range; tags that are no version are ignored.
func (o *ociSource) highestTag(ctx context.Context) (string, error) {
	tags, err := remote.List(o.repo, o.remoteOptions(ctx)...)
	if err != nil {
		return "", fmt.Errorf("list tags of %s: %w", o.repo, err)
	}
	var best *semver.Version
	var bestTag string
	for _, t := range tags {
		v, err := semver.NewVersion(t)
		if err != nil || !o.semver.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, bestTag = v, t
		}
	}
	if best == nil {
		return "", fmt.Errorf("resolve %s: none of its %d tags is a version in the range %q", o.repo, len(tags), o.spec.SemVer)
	}
	return bestTag, nil
}

// Fetch pulls exactly the manifest rev.ID, checks every blob against its
// digest and that the artifact is a published release, and writes it as
// an OCI layout in dir.
func (o *ociSource) Fetch(ctx context.Context, rev Revision, dir string) (*Content, error) {
	a, err := o.pull(ctx, rev.ID)
	if err != nil {
		return nil, o.scrub.wrap(err)
	}
	if _, err := publish.Decode(a); err != nil {
		return nil, o.scrub.wrap(fmt.Errorf("%s@%s is not a release written by piceli publish: %w", o.repo, rev.ID, err))
	}
	if err := publish.WriteLayout(dir, a, o.repo.RepositoryStr()); err != nil {
		return nil, o.scrub.wrap(errors.Join(err, emptyDir(dir)))
	}
	return &Content{Revision: rev, Artifact: dir}, nil
}

// pull reads the manifest digest and its config and layer, within
// MaxBytes in all, each verified against its digest.
func (o *ociSource) pull(ctx context.Context, digest string) (*publish.Artifact, error) {
	if !digestRE.MatchString(digest) {
		return nil, fmt.Errorf("revision %q is not a sha256 digest", digest)
	}
	ref := o.repo.Digest(digest)
	desc, err := remote.Get(ref, o.remoteOptions(ctx)...)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	raw := desc.Manifest
	if len(raw) > maxManifestBytes {
		return nil, fmt.Errorf("pull %s: the manifest is over %d bytes", ref, maxManifestBytes)
	}
	if got := sha256Digest(raw); got != digest {
		return nil, fmt.Errorf("pull %s: the registry sent a manifest of digest %s", ref, got)
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil || m.Config.MediaType != publish.ConfigMediaType || len(m.Layers) != 1 || m.Layers[0].MediaType != publish.ContentMediaType {
		return nil, fmt.Errorf("%s is not a release written by piceli publish (want config %s and one layer %s)", ref, publish.ConfigMediaType, publish.ContentMediaType)
	}
	budget := o.opts.MaxBytes - int64(len(raw))
	a := &publish.Artifact{Manifest: raw, Digest: digest}
	if a.Config, err = o.blob(ctx, m.Config, &budget); err != nil {
		return nil, fmt.Errorf("pull %s: config: %w", ref, err)
	}
	if a.Layer, err = o.blob(ctx, m.Layers[0], &budget); err != nil {
		return nil, fmt.Errorf("pull %s: layer: %w", ref, err)
	}
	return a, nil
}

// blob reads the blob d names, taking its size from budget; a blob over
// the budget is refused before it is read.
func (o *ociSource) blob(ctx context.Context, d v1.Descriptor, budget *int64) ([]byte, error) {
	if d.Size < 0 || d.Size > *budget {
		return nil, fmt.Errorf("blob %s of %d bytes is over the bound of %d bytes", d.Digest, d.Size, o.opts.MaxBytes)
	}
	l, err := remote.Layer(o.repo.Digest(d.Digest.String()), o.remoteOptions(ctx)...)
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, d.Size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != d.Size {
		return nil, fmt.Errorf("blob %s: the registry sent %d bytes, the manifest says %d", d.Digest, len(data), d.Size)
	}
	if got := sha256Digest(data); got != d.Digest.String() {
		return nil, fmt.Errorf("blob %s holds content of digest %s", d.Digest, got)
	}
	*budget -= d.Size
	return data, nil
}

func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// guardTransport refuses plain HTTP unless the Release allows it and
// bounds every response body.
type guardTransport struct {
	base     http.RoundTripper
	insecure bool
	limit    int64
}

func (t *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !t.insecure {
		return nil, fmt.Errorf("plain HTTP to %s refused: set spec.source.oci.insecure to allow it", req.URL.Host)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.limit, limit: t.limit, host: req.URL.Host}
	return resp, nil
}

// boundedBody fails a read past its bound instead of reading on.
type boundedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int64
	host  string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("a response from %s is over the bound of %d bytes", b.host, b.limit)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("a response from %s is over the bound of %d bytes", b.host, b.limit)
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
