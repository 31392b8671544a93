package sandbox

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ExecImage describes an image holding a single static Linux executable, the
// kind the sandbox builds for its real node (the pause image) and tests build
// to run on it: no base image, so nothing has to be pulled.
type ExecImage struct {
	// Ref names the image, e.g. localhost/piceli/pause:1. A name without a
	// registry would be read as docker.io/...; prefer localhost/.
	Ref string
	// Executable is the file packed as /NAME and run as the entrypoint. It
	// must be linked statically (CGO_ENABLED=0): the image has no libc.
	Executable string
	// Args are the default arguments (the image's Cmd).
	Args []string
}

// epoch is every timestamp in the images built here, so that the same
// executable always gives the same digest.
var epoch = time.Unix(0, 0).UTC()

// Image builds the image: one layer with the executable at the root, owned
// by root with a fixed time, for linux on this machine's architecture.
func (e ExecImage) Image() (v1.Image, error) {
	bin, err := os.ReadFile(e.Executable)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", e.Ref, err)
	}
	file := filepath.Base(e.Executable)
	layerTar, err := singleFileTar(file, bin)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", e.Ref, err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("image %s: layer: %w", e.Ref, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", e.Ref, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", e.Ref, err)
	}
	cfg = cfg.DeepCopy()
	// containerd imports only images for its platform unless told
	// otherwise, and an image that names none is not one.
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config.Entrypoint = []string{"/" + file}
	cfg.Config.Cmd = e.Args
	cfg.Config.Env = []string{"PATH=/"}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return nil, fmt.Errorf("image %s: %w", e.Ref, err)
	}
	return mutate.CreatedAt(img, v1.Time{Time: epoch})
}

// singleFileTar is a tar stream holding one executable file at the root.
func singleFileTar(file string, content []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Name: file, Mode: 0o755, Size: int64(len(content)), ModTime: epoch,
		Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(content); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTarball writes the image to w as a docker-archive tarball (what
// `docker save` writes and `ctr images import` and `piceli sandbox load`
// read), tagged Ref.
func (e ExecImage) WriteTarball(w io.Writer) error {
	tag, err := name.NewTag(e.Ref)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", e.Ref, err)
	}
	img, err := e.Image()
	if err != nil {
		return err
	}
	if err := tarball.Write(tag, img, w); err != nil {
		return fmt.Errorf("write image %s: %w", e.Ref, err)
	}
	return nil
}

// WriteLayout writes the image into a new OCI image layout directory dir,
// its index entry annotated with Ref as org.opencontainers.image.ref.name.
func (e ExecImage) WriteLayout(dir string) error {
	if _, err := name.NewTag(e.Ref); err != nil {
		return fmt.Errorf("image reference %q: %w", e.Ref, err)
	}
	img, err := e.Image()
	if err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	err = p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: e.Ref}))
	if err != nil {
		return fmt.Errorf("write image %s into %s: %w", e.Ref, dir, err)
	}
	return nil
}

// refNameAnnotation names an image in an OCI layout's index.
const refNameAnnotation = "org.opencontainers.image.ref.name"
