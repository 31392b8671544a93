package publish

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/refusal"
)

// Artifact is a built artifact in memory: its three blobs and the digest
// of its manifest ("sha256:..."), which names it.
type Artifact struct {
	Manifest []byte
	Config   []byte
	Layer    []byte
	Digest   string
	// Files are the paths in the layer's tar, sorted.
	Files []string
}

// Bytes is the size of the artifact's blobs.
func (a *Artifact) Bytes() int64 { return int64(len(a.Manifest) + len(a.Config) + len(a.Layer)) }

// epoch is every tar entry's modification time: the Unix epoch, which
// plain tar headers can hold.
var epoch = time.Unix(0, 0).UTC()

// Build makes the artifact of c. It is pure and deterministic: the same
// content gives the same bytes. A Secret carrying values and a workload
// image not pinned by digest are refused (refusal.Is), each naming its
// object; so is content whose metadata does not describe its manifests.
func Build(c *Content) (*Artifact, error) {
	if err := check(c); err != nil {
		return nil, err
	}
	files, err := contentFiles(c)
	if err != nil {
		return nil, err
	}
	layer, names, err := tarGzip(files)
	if err != nil {
		return nil, err
	}
	config := []byte("{}")
	manifest, err := manifestOf(config, layer, c.Metadata.Release)
	if err != nil {
		return nil, err
	}
	return &Artifact{Manifest: manifest, Config: config, Layer: layer, Digest: digestOf(manifest), Files: names}, nil
}

// check refuses content an artifact must not carry.
func check(c *Content) error {
	if len(c.Metadata.Objects) != len(c.Manifests) {
		return refusal.Errorf("publish: the metadata describes %d objects, the release has %d", len(c.Metadata.Objects), len(c.Manifests))
	}
	var errs []error
	for _, u := range c.Manifests {
		errs = append(errs, secretValues(u), unpinnedImages(u))
	}
	if err := errors.Join(errs...); err != nil {
		return refusal.New(err)
	}
	return nil
}

// secretValues refuses a Secret that carries values: published Secrets
// are declarations, their values resolved where the release is applied.
func secretValues(u *unstructured.Unstructured) error {
	if !object.IsSecret(u) {
		return nil
	}
	for _, f := range []string{"data", "stringData"} {
		if m, _, _ := unstructured.NestedFieldNoCopy(u.Object, f); m != nil {
			return fmt.Errorf("publish %s: it carries values (%s); an artifact holds secret declarations only: declare its values by source (app.Secret) instead", object.RefOf(u), f)
		}
	}
	return nil
}

// unpinnedImages refuses every container image of u's pods that is not
// pinned by digest, naming the object, container and image.
func unpinnedImages(u *unstructured.Unstructured) error {
	path := podSpecPath(u)
	if path == nil {
		return nil
	}
	var errs []error
	for _, list := range []string{"initContainers", "containers"} {
		items, _, _ := unstructured.NestedSlice(u.Object, append(path, list)...)
		for _, it := range items {
			c, _ := it.(map[string]any)
			name, _ := c["name"].(string)
			image, _ := c["image"].(string)
			if !spec.Pinned(image) {
				errs = append(errs, fmt.Errorf("publish %s: container %q: image %q is not pinned by digest; an artifact names every image by digest", object.RefOf(u), name, image))
			}
		}
	}
	return errors.Join(errs...)
}

// podSpecPath is where u keeps the spec of its pods, or nil.
func podSpecPath(u *unstructured.Unstructured) []string {
	if u.GroupVersionKind().Group == "" && u.GetKind() == "Pod" {
		return []string{"spec"}
	}
	if p := object.PodTemplatePath(u); p != nil {
		return append(p, "spec")
	}
	return nil
}

// file is one file of the layer.
type file struct {
	name string
	data []byte
}

// contentFiles encodes each manifest as the YAML file its ObjectInfo
// names, and the metadata as MetadataFile.
func contentFiles(c *Content) ([]file, error) {
	var out []file
	for i, u := range c.Manifests {
		name := c.Metadata.Objects[i].File
		if name != render.FileName(i, u, render.YAML) {
			return nil, refusal.Errorf("publish %s: metadata names its file %q, want %q", object.RefOf(u), name, render.FileName(i, u, render.YAML))
		}
		data, err := render.EncodeOne(u, render.YAML)
		if err != nil {
			return nil, err
		}
		out = append(out, file{name: name, data: data})
	}
	meta, err := json.MarshalIndent(c.Metadata, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode release metadata: %w", err)
	}
	return append(out, file{name: MetadataFile, data: append(meta, '\n')}), nil
}

// tarGzip writes files, and the directories above them, into a tar with
// sorted entries, the epoch as every time, fixed modes and no owner, then
// gzips it with no name or time in the header.
func tarGzip(files []file) ([]byte, []string, error) {
	files = withDirs(files)
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	var names []string
	for _, f := range files {
		if err := tw.WriteHeader(header(f)); err != nil {
			return nil, nil, fmt.Errorf("write %s into the artifact: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, nil, err
		}
		names = append(names, f.name)
	}
	if err := tw.Close(); err != nil {
		return nil, nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	return gz.Bytes(), names, nil
}

// withDirs adds an entry for each directory a file is in (names ending
// in "/").
func withDirs(files []file) []file {
	seen := map[string]bool{}
	out := slices.Clone(files)
	for _, f := range files {
		parts := strings.Split(f.name, "/")
		for j := 1; j < len(parts); j++ {
			d := strings.Join(parts[:j], "/") + "/"
			if !seen[d] {
				seen[d] = true
				out = append(out, file{name: d})
			}
		}
	}
	return out
}

func header(f file) *tar.Header {
	h := &tar.Header{Name: f.name, ModTime: epoch, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(f.data)), Format: tar.FormatPAX}
	if strings.HasSuffix(f.name, "/") {
		h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
	}
	return h
}

// ociDescriptor and ociManifest are the parts of an OCI image manifest an
// artifact writes, in a fixed field order.
type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type ociManifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Config        ociDescriptor     `json:"config"`
	Layers        []ociDescriptor   `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// AnnotationTitle names the release on an artifact's manifest.
const AnnotationTitle = "org.opencontainers.image.title"

func manifestOf(config, layer []byte, release string) ([]byte, error) {
	m := ociManifest{
		SchemaVersion: 2,
		MediaType:     ManifestMediaType,
		Config:        ociDescriptor{MediaType: ConfigMediaType, Digest: digestOf(config), Size: int64(len(config))},
		Layers:        []ociDescriptor{{MediaType: ContentMediaType, Digest: digestOf(layer), Size: int64(len(layer))}},
		Annotations:   map[string]string{AnnotationTitle: release},
	}
	return json.Marshal(m)
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
