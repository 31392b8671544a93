package artifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/refusal"
)

// The annotations Build puts on each image of a layout's index.json.
const (
	// AnnotationRefName is the image's name in build.toml.
	AnnotationRefName = "org.opencontainers.image.ref.name"
	// AnnotationImageName is its full reference, pinned by digest, which
	// containerd takes as the image's name on import.
	AnnotationImageName = "io.containerd.image.name"
	// AnnotationRepository is its repository path, for pushes.
	AnnotationRepository = "dev.piceli.repository"
	// AnnotationLock is the SHA-256 of the lock file it was built from.
	AnnotationLock = "dev.piceli.lock"
)

// readIndex reads the index.json of the OCI layout at dir. A layout
// without a readable index.json is refused (refusal.Is), and so is one
// whose index.json is no OCI image index; that error says where the JSON
// broke but never quotes the file, which may be a symlink to a file that
// is not the caller's to show.
func readIndex(dir string) (*v1.IndexManifest, error) {
	data, err := readMetadata(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, refusal.Errorf("read OCI layout %s: %w", dir, err)
	}
	var idx v1.IndexManifest
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, refusedf("read OCI layout %s: index.json is not an OCI image index: %s", dir, jsonProblem(err))
	}
	return &idx, nil
}

// jsonProblem says where decoding JSON failed without quoting any of it:
// encoding/json's messages show the offending character or value.
func jsonProblem(err error) string {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("a value of the wrong type before byte %d", typ.Offset)
	}
	return "a value is malformed"
}

// resolveRef finds the manifest named ref (its ref name annotation, or its
// digest "sha256:...") in the layout at dir.
func resolveRef(dir, ref string) (v1.Descriptor, error) {
	idx, err := readIndex(dir)
	if err != nil {
		return v1.Descriptor{}, err
	}
	var names []string
	for _, d := range idx.Manifests {
		if d.Annotations[AnnotationRefName] == ref || d.Digest.String() == ref {
			return d, nil
		}
		if n := d.Annotations[AnnotationRefName]; n != "" {
			names = append(names, n)
		}
	}
	return v1.Descriptor{}, fmt.Errorf("no image %q in OCI layout %s (it has: %s)", ref, dir, strings.Join(names, ", "))
}

// readMetadata reads a file of a layout Piceli laid out (index.json, a
// manifest or config blob): a regular file, never a symlink, of at most
// inputfile.MetadataLimit bytes.
func readMetadata(path string) ([]byte, error) {
	return inputfile.ReadNoFollow(path, inputfile.MetadataLimit)
}

// openBlob opens the blob h of the layout at dir: a regular file, never a
// symlink (a blob linked to /dev/zero hung inspect and import), opened
// without blocking (nor does a FIFO hang them).
func openBlob(dir string, h v1.Hash) (*os.File, error) {
	return inputfile.Open(blobPath(dir, h), inputfile.Options{NoFollow: true})
}

// blobPath is where the layout at dir keeps the blob h.
func blobPath(dir string, h v1.Hash) string {
	return filepath.Join(dir, "blobs", h.Algorithm, h.Hex)
}
