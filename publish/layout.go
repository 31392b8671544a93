package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/refusal"
)

// The annotations of an artifact in an OCI layout's index.json, those
// artifact.Import reads when it pushes a layout.
const (
	annotationRefName    = "org.opencontainers.image.ref.name"
	annotationRepository = "dev.piceli.repository"
)

// Bounds of what reading an artifact accepts.
const (
	maxMetadataBytes = 1 << 20   // index.json, a manifest, a config
	maxLayerBytes    = 64 << 20  // the gzipped layer
	maxTarBytes      = 256 << 20 // the layer unpacked
)

type ociIndex struct {
	SchemaVersion int             `json:"schemaVersion"`
	MediaType     string          `json:"mediaType"`
	Manifests     []ociDescriptor `json:"manifests"`
}

// WriteLayout writes a as an OCI image layout in dir, created if needed:
// oci-layout, index.json naming the artifact (its ref name is name) and
// its three blobs. A dir that holds anything but an OCI layout is refused
// (refusal.Is) before anything is written; a layout there gains the blobs
// and its index.json is replaced.
func WriteLayout(dir string, a *Artifact, name string) error {
	return writeLayout(dir, a, map[string]string{annotationRefName: name})
}

func writeLayout(dir string, a *Artifact, ann map[string]string) error {
	if err := checkOutDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return fmt.Errorf("create OCI layout %s: %w", dir, err)
	}
	for _, b := range [][]byte{a.Config, a.Layer, a.Manifest} {
		hex := strings.TrimPrefix(digestOf(b), "sha256:")
		if err := atomicfile.Write(filepath.Join(dir, "blobs", "sha256", hex), b, 0o644); err != nil {
			return fmt.Errorf("write OCI layout %s: %w", dir, err)
		}
	}
	idx := ociIndex{SchemaVersion: 2, MediaType: "application/vnd.oci.image.index.v1+json", Manifests: []ociDescriptor{
		{MediaType: ManifestMediaType, Digest: a.Digest, Size: int64(len(a.Manifest)), Annotations: ann},
	}}
	data, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		return fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	return atomicfile.Write(filepath.Join(dir, "index.json"), data, 0o644)
}

// checkOutDir refuses a dir that exists and holds something other than an
// OCI layout, or is no directory.
func checkOutDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return refusal.Errorf("write OCI layout %s: %w", dir, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "oci-layout", "index.json", "blobs":
		default:
			return refusal.Errorf("write OCI layout %s: the directory holds %s, which is not part of an OCI layout; choose an empty directory", dir, e.Name())
		}
	}
	return nil
}

// readLayout reads the artifact of the OCI layout at dir: its index must
// name exactly one manifest. Every file is bounded and read without
// following a symlink; every blob's digest is checked.
func readLayout(dir string) (*Artifact, error) {
	data, err := inputfile.ReadNoFollow(filepath.Join(dir, "index.json"), maxMetadataBytes)
	if err != nil {
		return nil, refusal.Errorf("read OCI layout %s: %w", dir, err)
	}
	var idx ociIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, refusal.Errorf("read OCI layout %s: index.json is not an OCI image index", dir)
	}
	if len(idx.Manifests) != 1 {
		return nil, refusal.Errorf("read OCI layout %s: index.json names %d manifests, a published release has one", dir, len(idx.Manifests))
	}
	d := idx.Manifests[0]
	return fetchArtifact(d.Digest, func(digest string, limit int64) ([]byte, error) {
		return readBlob(dir, digest, limit)
	})
}

// readBlob reads and verifies one blob of the layout at dir.
func readBlob(dir, digest string, limit int64) ([]byte, error) {
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hex) != 64 || strings.ContainsAny(hex, "/.\\") {
		return nil, fmt.Errorf("blob %q: want a sha256 digest", digest)
	}
	data, err := inputfile.ReadNoFollow(filepath.Join(dir, "blobs", "sha256", hex), limit)
	if err != nil {
		return nil, err
	}
	if got := digestOf(data); got != digest {
		return nil, fmt.Errorf("blob %s holds content of digest %s", digest, got)
	}
	return data, nil
}
