package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BuildOptions tune Build. The zero value is valid.
type BuildOptions struct {
	// Log receives one line per step (compiling a binary, writing the
	// layout). Nil discards them.
	Log io.Writer
}

// BuildResult describes the layout a build wrote.
type BuildResult struct {
	Layout string // the OCI layout directory
	Images []BuiltImage
	// StoredBytes is the size of every blob in the layout, each counted
	// once; SharedBytes the size of the blobs that more than one image
	// uses (stored once, not once per image).
	StoredBytes int64
	SharedBytes int64
	Duration    time.Duration
}

// BuiltImage is one image of a build.
type BuiltImage struct {
	Name      string   // its name in build.toml
	Reference string   // registry/repository@sha256:..., as imported
	Digest    string   // the manifest digest
	Size      int64    // manifest, config and layers, compressed
	Layers    []string // layer digests, base first
}

// Build builds every image of the build spec at specPath into its OCI
// layout. It first checks every input against the lock file and refuses,
// before writing anything, an input that is unpinned, changed or gone (an
// *InputError naming it). It needs no network: Go binaries compile with
// GOPROXY=off. The layout is written beside its final place and swapped in,
// so a failed build leaves the previous one; the same pinned inputs give
// byte-identical layouts on any machine with the same Go version.
func Build(ctx context.Context, specPath string, opts BuildOptions) (*BuildResult, error) {
	start := time.Now()
	s, err := LoadSpec(specPath)
	if err != nil {
		return nil, err
	}
	lock, lockBytes, err := verifyPinned(ctx, s)
	if err != nil {
		return nil, err
	}
	b := &builder{spec: s, lock: lock, lockDigest: sha256Hex(lockBytes), log: opts.Log, bases: map[string][]v1.Layer{}}
	if b.log == nil {
		b.log = io.Discard
	}
	res, err := b.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Duration = time.Since(start)
	return res, nil
}

type builder struct {
	spec       *Spec
	lock       *Lock
	lockDigest string
	log        io.Writer
	bases      map[string][]v1.Layer
	tmp        string // binaries
}

func (b *builder) run(ctx context.Context) (*BuildResult, error) {
	tmp, err := os.MkdirTemp("", "piceli-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b.tmp = tmp
	for _, name := range sortedKeys(b.spec.Bases) {
		if b.bases[name], err = b.baseLayers(b.spec.Bases[name]); err != nil {
			return nil, fmt.Errorf("base.%s: %w", name, err)
		}
	}
	var imgs []v1.Image
	for _, name := range sortedKeys(b.spec.Images) {
		img, err := b.image(ctx, b.spec.Images[name])
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", name, err)
		}
		imgs = append(imgs, img)
	}
	return b.write(imgs)
}

// baseLayers makes a files base into one layer, or reads the layers of a
// base image from its layout after checking its pinned manifest digest.
func (b *builder) baseLayers(base *Base) ([]v1.Layer, error) {
	if base.Layout == "" {
		entries, err := layerEntries(base.Files)
		if err != nil {
			return nil, err
		}
		l, err := buildLayer(entries, b.spec.Epoch)
		if err != nil {
			return nil, err
		}
		return []v1.Layer{l}, nil
	}
	desc, err := resolveRef(base.Layout, base.Ref)
	if err != nil {
		return nil, err
	}
	img, err := layout.Path(base.Layout).Image(desc.Digest)
	if err != nil {
		return nil, err
	}
	return img.Layers()
}

// image assembles one image: base layers, a files layer, a binary layer.
func (b *builder) image(ctx context.Context, im *Image) (v1.Image, error) {
	var adds []mutate.Addendum
	history := func(what string) v1.History {
		return v1.History{Created: v1.Time{Time: b.spec.Epoch}, CreatedBy: "piceli artifacts build: " + what}
	}
	for _, name := range im.Bases {
		for _, l := range b.bases[name] {
			adds = append(adds, mutate.Addendum{Layer: l, History: history("base " + name), MediaType: types.OCILayer})
		}
	}
	if len(im.Files) > 0 {
		entries, err := layerEntries(im.Files)
		if err != nil {
			return nil, err
		}
		l, err := buildLayer(entries, b.spec.Epoch)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: l, History: history("files"), MediaType: types.OCILayer})
	}
	if im.Go != "" {
		l, err := b.binaryLayer(ctx, im)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: l, History: history("go binary " + im.BinaryPath()), MediaType: types.OCILayer})
	}
	img, err := mutate.ConfigFile(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), b.config(im))
	if err != nil {
		return nil, err
	}
	if img, err = mutate.Append(img, adds...); err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: b.spec.Epoch})
}

func (b *builder) binaryLayer(ctx context.Context, im *Image) (v1.Layer, error) {
	fmt.Fprintf(b.log, "compiling %s for %s\n", b.relative(im.Go), b.lock.Platform)
	bin := filepath.Join(b.tmp, im.Name)
	g, err := findGo(b.lock.Platform)
	if err != nil {
		return nil, err
	}
	if err := g.build(ctx, im.Go, bin); err != nil {
		return nil, err
	}
	return buildLayer([]fileEntry{{name: im.BinaryPath()[1:], src: bin, exec: true}}, b.spec.Epoch)
}

func (b *builder) relative(p string) string {
	if rel, err := filepath.Rel(b.spec.Dir, p); err == nil {
		return rel
	}
	return p
}

// config is the image configuration of im.
func (b *builder) config(im *Image) *v1.ConfigFile {
	goos, goarch, _ := cutPlatform(b.lock.Platform)
	env := []string{}
	if _, ok := im.Env["PATH"]; !ok {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	for _, k := range sortedKeys(im.Env) {
		env = append(env, k+"="+im.Env[k])
	}
	var ports map[string]struct{}
	if len(im.Ports) > 0 {
		ports = map[string]struct{}{}
		for _, p := range im.Ports {
			ports[strconv.Itoa(p)+"/tcp"] = struct{}{}
		}
	}
	return &v1.ConfigFile{
		Architecture: goarch, OS: goos,
		Created: v1.Time{Time: b.spec.Epoch},
		RootFS:  v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: im.Entrypoint, Cmd: im.Cmd, User: im.User, WorkingDir: im.Workdir,
			Env: env, ExposedPorts: ports, Labels: im.Labels,
		},
	}
}

func cutPlatform(p string) (goos, goarch string, ok bool) { return strings.Cut(p, "/") }

// write writes the images into a fresh layout and swaps it in place of
// the old one, under a lock so that two builds never interleave.
func (b *builder) write(imgs []v1.Image) (*BuildResult, error) {
	dir := b.spec.Layout
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(dir + ".lock")
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer fl.Unlock()
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".new-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res, err := b.fill(tmp, imgs)
	if err != nil {
		return nil, fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	if err := swapDir(tmp, dir); err != nil {
		return nil, err
	}
	res.Layout = dir
	fmt.Fprintf(b.log, "wrote %s\n", dir)
	return res, nil
}

// fill writes imgs into the empty layout at dir and sums up what it holds.
func (b *builder) fill(dir string, imgs []v1.Image) (*BuildResult, error) {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return nil, err
	}
	goos, goarch, _ := cutPlatform(b.lock.Platform)
	res := &BuildResult{}
	uses := map[v1.Hash]int{}
	sizes := map[v1.Hash]int64{}
	for i, name := range sortedKeys(b.spec.Images) {
		im := b.spec.Images[name]
		built, blobs, err := describe(imgs[i])
		if err != nil {
			return nil, err
		}
		built.Name = name
		built.Reference = b.spec.Registry + "/" + im.Repository + "@" + built.Digest
		ann := map[string]string{
			AnnotationRefName: name, AnnotationImageName: built.Reference,
			AnnotationRepository: im.Repository, AnnotationLock: "sha256:" + b.lockDigest,
		}
		if err := p.AppendImage(imgs[i], layout.WithAnnotations(ann), layout.WithPlatform(v1.Platform{OS: goos, Architecture: goarch})); err != nil {
			return nil, err
		}
		for h, n := range blobs {
			uses[h]++
			sizes[h] = n
		}
		res.Images = append(res.Images, built)
	}
	for h, n := range sizes {
		res.StoredBytes += n
		if uses[h] > 1 {
			res.SharedBytes += n
		}
	}
	return res, nil
}

// describe returns what BuiltImage says of img and the size of each of
// its blobs (manifest, config, layers).
func describe(img v1.Image) (BuiltImage, map[v1.Hash]int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return BuiltImage{}, nil, err
	}
	d, err := img.Digest()
	if err != nil {
		return BuiltImage{}, nil, err
	}
	raw, err := img.RawManifest()
	if err != nil {
		return BuiltImage{}, nil, err
	}
	blobs := map[v1.Hash]int64{d: int64(len(raw)), m.Config.Digest: m.Config.Size}
	out := BuiltImage{Digest: d.String(), Size: int64(len(raw)) + m.Config.Size}
	for _, l := range m.Layers {
		blobs[l.Digest] = l.Size
		out.Size += l.Size
		out.Layers = append(out.Layers, l.Digest.String())
	}
	return out, blobs, nil
}

// swapDir puts the directory tmp in place of dir: the old dir, if any, is
// moved aside first and removed after.
func swapDir(tmp, dir string) error {
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
