package publish

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/refusal"
)

// Scheme prefixes a registry reference where a directory could be given.
const Scheme = "oci://"

// Destination is a registry reference to push to: oci://HOST[:PORT]/REPO:TAG.
type Destination struct {
	Registry   string // HOST[:PORT]
	Repository string
	Tag        string
}

// ParseDestination reads "oci://HOST[:PORT]/REPO:TAG". Anything else (no
// scheme, no tag, a digest) is refused (refusal.Is).
func ParseDestination(s string) (Destination, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok || strings.Contains(rest, "@") {
		return Destination{}, refusal.Errorf("destination %q: want oci://HOST/REPO:TAG", s)
	}
	t, err := name.NewTag(rest, name.StrictValidation)
	if err != nil || !strings.Contains(rest, "/") {
		return Destination{}, refusal.Errorf("destination %q: want oci://HOST/REPO:TAG with an explicit tag", s)
	}
	return Destination{Registry: t.RegistryStr(), Repository: t.RepositoryStr(), Tag: t.TagStr()}, nil
}

// PushOptions say how Push reaches the registry. The zero value is valid.
type PushOptions struct {
	// Registry carries credentials and Insecure; its Address, Tag and
	// forward fields are set by Push from the destination.
	Registry artifact.RegistryOptions
	// Log receives one line per step; nil discards.
	Log io.Writer
}

// Push sends a to the registry of to, by digest, and tags it there, through
// artifact.Import's registry push (only blobs the registry lacks are sent;
// plain HTTP only to loopback unless allowed). It returns the pushed
// reference pinned by digest, HOST/REPO@sha256:....
func Push(ctx context.Context, a *Artifact, to Destination, opts PushOptions) (string, error) {
	tmp, err := os.MkdirTemp("", "piceli-publish-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "layout")
	ann := map[string]string{annotationRefName: to.Repository, annotationRepository: to.Repository}
	if err := writeLayout(dir, a, ann); err != nil {
		return "", err
	}
	ro := opts.Registry
	ro.Address, ro.Tag, ro.ViaForward = to.Registry, to.Tag, ""
	in := artifact.ImportOptions{Target: artifact.TargetRegistry, Registry: ro, ReceiptDir: filepath.Join(tmp, "receipts"), Log: opts.Log}
	if _, err := artifact.Import(ctx, dir, in); err != nil {
		return "", err
	}
	return to.Registry + "/" + to.Repository + "@" + a.Digest, nil
}

// Fetch reads the artifact source names: an OCI layout directory, or
// oci://HOST[:PORT]/REPO@sha256:DIGEST pulled through artifact.Pull (a
// tag is refused: a plan must come from exactly what was named). Every
// blob is bounded and checked against its digest.
func Fetch(ctx context.Context, source string, o artifact.RegistryOptions) (*Artifact, error) {
	ref, remote := strings.CutPrefix(source, Scheme)
	if !remote {
		return readLayout(source)
	}
	img, err := artifact.Pull(ctx, ref, o)
	if err != nil {
		return nil, err
	}
	d, _ := name.NewDigest(ref)
	return fetchArtifact(d.DigestStr(), imageBlobs(img, d.DigestStr()))
}

// imageBlobs reads the blobs of a pulled image: its manifest (digest
// manifest) and the blobs it names.
func imageBlobs(img v1.Image, manifest string) blobReader {
	return func(digest string, limit int64) ([]byte, error) {
		var rc io.ReadCloser
		var err error
		if digest == manifest {
			raw, err := img.RawManifest()
			return checked(raw, digest, limit, err)
		}
		h, herr := v1.NewHash(digest)
		if herr != nil {
			return nil, herr
		}
		l, err := img.LayerByDigest(h)
		if err == nil {
			rc, err = l.Compressed()
		}
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		return checked(data, digest, limit, err)
	}
}

// checked returns data if it is within limit and has the digest.
func checked(data []byte, digest string, limit int64, err error) ([]byte, error) {
	switch {
	case err != nil:
		return nil, err
	case int64(len(data)) > limit:
		return nil, fmt.Errorf("blob %s is over %d bytes", digest, limit)
	case digestOf(data) != digest:
		return nil, fmt.Errorf("blob %s holds content of digest %s", digest, digestOf(data))
	}
	return data, nil
}
