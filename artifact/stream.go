package artifact

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/pynenc/piceli/internal/inputfile"
)

// chosen is one image of a layout selected for delivery, with its blobs.
type chosen struct {
	name       string
	reference  string
	repository string
	desc       v1.Descriptor
	config     v1.Descriptor
	layers     []v1.Descriptor
}

// blobs lists the manifest, config and layers of c.
func (c chosen) blobs() []v1.Descriptor {
	return append([]v1.Descriptor{c.desc, c.config}, c.layers...)
}

// choose selects the images named (all when names is empty) from the layout
// at dir after verifying every blob they reference, so that nothing is
// delivered from a damaged layout.
func choose(dir string, names []string) ([]chosen, error) {
	r, err := Inspect(dir)
	if err != nil {
		return nil, err
	}
	idx, err := readIndex(dir)
	if err != nil {
		return nil, err
	}
	var out []chosen
	for _, d := range idx.Manifests {
		name := d.Annotations[AnnotationRefName]
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		c, err := readChosen(dir, d)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(c chosen) bool { return c.name == n }) {
			return nil, fmt.Errorf("no image %q in OCI layout %s (it has: %s)", n, dir, imageNames(r))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("OCI layout %s holds no image", dir)
	}
	return out, nil
}

func imageNames(r *Report) string {
	var names []string
	for _, im := range r.Images {
		names = append(names, im.Name)
	}
	return strings.Join(names, ", ")
}

func readChosen(dir string, d v1.Descriptor) (chosen, error) {
	raw, err := readMetadata(blobPath(dir, d.Digest))
	if err != nil {
		return chosen{}, err
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return chosen{}, fmt.Errorf("manifest %s: %w", d.Digest, err)
	}
	c := chosen{
		name: d.Annotations[AnnotationRefName], reference: d.Annotations[AnnotationImageName],
		repository: d.Annotations[AnnotationRepository], desc: d, config: m.Config, layers: m.Layers,
	}
	if c.name == "" || c.repository == "" {
		return chosen{}, fmt.Errorf("image %s in %s has no %s or %s annotation; build the layout with piceli artifacts build", d.Digest, dir, AnnotationRefName, AnnotationRepository)
	}
	if c.reference == "" {
		c.reference = DefaultRegistry + "/" + c.repository + "@" + d.Digest.String()
	}
	return c, nil
}

// archiveFormat says what an archive holds beside the OCI layout: docker
// load wants a manifest.json too.
type archiveFormat struct{ dockerManifest bool }

// writeArchive writes imgs as one tar stream of an OCI image layout (and a
// docker manifest.json when asked), reading each blob from the layout at
// dir once and checking its digest as it goes. Nothing is buffered beyond
// one copy buffer. It ends with ctx's error soon after ctx ends.
func writeArchive(ctx context.Context, w io.Writer, dir string, imgs []chosen, f archiveFormat) error {
	tw := tar.NewWriter(w)
	if err := tarBytes(tw, "oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	seen := map[v1.Hash]bool{}
	for _, c := range imgs {
		for _, b := range c.blobs() {
			if seen[b.Digest] {
				continue
			}
			seen[b.Digest] = true
			if err := tarBlob(ctx, tw, dir, b); err != nil {
				return err
			}
		}
	}
	if err := tarJSON(tw, "index.json", archiveIndex(imgs)); err != nil {
		return err
	}
	if f.dockerManifest {
		if err := tarJSON(tw, "manifest.json", dockerManifest(imgs)); err != nil {
			return err
		}
	}
	return tw.Close()
}

// archiveIndex lists imgs, each named by its full digest reference.
func archiveIndex(imgs []chosen) v1.IndexManifest {
	idx := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex}
	for _, c := range imgs {
		d := c.desc
		d.Annotations = map[string]string{AnnotationImageName: c.reference, AnnotationRefName: c.name}
		idx.Manifests = append(idx.Manifests, d)
	}
	return idx
}

type dockerEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// dockerManifest is the manifest.json of `docker save`: one entry per
// image, tagged repository:name since docker tags cannot hold a digest.
func dockerManifest(imgs []chosen) []dockerEntry {
	var out []dockerEntry
	for _, c := range imgs {
		repo, _, _ := strings.Cut(c.reference, "@")
		e := dockerEntry{Config: "blobs/sha256/" + c.config.Digest.Hex, RepoTags: []string{repo + ":" + c.name}}
		for _, l := range c.layers {
			e.Layers = append(e.Layers, "blobs/sha256/"+l.Digest.Hex)
		}
		out = append(out, e)
	}
	return out
}

func tarHeader(name string, size int64) *tar.Header {
	return &tar.Header{Name: name, Size: size, Mode: 0o644, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
}

func tarBytes(tw *tar.Writer, name string, data []byte) error {
	if err := tw.WriteHeader(tarHeader(name, int64(len(data)))); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

func tarJSON(tw *tar.Writer, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tarBytes(tw, name, data)
}

// tarBlob copies one blob into the archive, verifying its digest.
func tarBlob(ctx context.Context, tw *tar.Writer, dir string, d v1.Descriptor) error {
	f, err := openBlob(dir, d.Digest)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(tarHeader("blobs/sha256/"+d.Digest.Hex, d.Size)); err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(tw, h), inputfile.Reader(ctx, f), d.Size); err != nil {
		return fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.Digest.Hex {
		return fmt.Errorf("blob %s changed while it was sent (now sha256:%s)", d.Digest, got)
	}
	return nil
}
