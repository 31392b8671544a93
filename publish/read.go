package publish

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/refusal"
)

// blobReader reads the blob digest, at most limit bytes, verified.
type blobReader func(digest string, limit int64) ([]byte, error)

// fetchArtifact reads the manifest digest and the blobs it names through
// read, and checks that it is a published release: an OCI manifest with
// the Flux config and content media types and one layer.
func fetchArtifact(digest string, read blobReader) (*Artifact, error) {
	raw, err := read(digest, maxMetadataBytes)
	if err != nil {
		return nil, refusal.Errorf("read artifact %s: %w", digest, err)
	}
	var m ociManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, refusal.Errorf("read artifact %s: its manifest is not an OCI image manifest", digest)
	}
	if m.Config.MediaType != ConfigMediaType || len(m.Layers) != 1 || m.Layers[0].MediaType != ContentMediaType {
		return nil, refusal.Errorf("read artifact %s: not a published release (want config %s and one layer %s)", digest, ConfigMediaType, ContentMediaType)
	}
	a := &Artifact{Manifest: raw, Digest: digest}
	if a.Config, err = read(m.Config.Digest, maxMetadataBytes); err != nil {
		return nil, refusal.Errorf("read artifact %s: config: %w", digest, err)
	}
	if a.Layer, err = read(m.Layers[0].Digest, maxLayerBytes); err != nil {
		return nil, refusal.Errorf("read artifact %s: layer: %w", digest, err)
	}
	return a, nil
}

// Decode returns the content of a: the manifests its metadata lists, in
// order, and the metadata. A layer that is no gzipped tar, unpacks past a
// bound, lacks a listed file or whose metadata is not MetadataSchema is
// refused (refusal.Is).
func Decode(a *Artifact) (*Content, error) {
	files, err := untar(a.Layer)
	if err != nil {
		return nil, refusal.Errorf("read artifact %s: %w", a.Digest, err)
	}
	var md Metadata
	if err := json.Unmarshal(files[MetadataFile], &md); err != nil || md.Schema != MetadataSchema {
		return nil, refusal.Errorf("read artifact %s: %s is missing or not a %s document", a.Digest, MetadataFile, MetadataSchema)
	}
	c := &Content{Metadata: md}
	for _, o := range md.Objects {
		u, err := decodeManifest(files[o.File])
		if err != nil {
			return nil, refusal.Errorf("read artifact %s: %s (%s): %w", a.Digest, o.File, o.Ref, err)
		}
		c.Manifests = append(c.Manifests, u)
	}
	return c, nil
}

func decodeManifest(data []byte) (*unstructured.Unstructured, error) {
	if data == nil {
		return nil, errors.New("no such file in the artifact")
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("not a YAML manifest: %w", err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// untar unpacks a gzipped tar's regular files into memory, bounded by
// maxTarBytes in all. Names are only map keys: nothing touches a disk.
func untar(layer []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		return nil, fmt.Errorf("layer is not gzip: %w", err)
	}
	lr := &io.LimitedReader{R: zr, N: maxTarBytes + 1}
	tr := tar.NewReader(lr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("layer is not a tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", h.Name, err)
		}
		files[strings.TrimPrefix(h.Name, "./")] = data
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("layer unpacks to more than %d bytes", maxTarBytes)
	}
	return files, nil
}
