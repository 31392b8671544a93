package artifact_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/refusal"
)

// pinAndBuild copies the services example into a fresh directory, pins
// and builds it.
func pinAndBuild(t *testing.T) (string, *artifact.BuildResult) {
	t.Helper()
	spec := artifacttest.Services(t, t.TempDir())
	if _, err := artifact.Pin(t.Context(), spec, artifact.PinOptions{}); err != nil {
		t.Fatalf("Pin: %v", err)
	}
	return spec, build(t, spec)
}

func build(t *testing.T, spec string) *artifact.BuildResult {
	t.Helper()
	res, err := artifact.Build(t.Context(), spec, artifact.BuildOptions{})
	if err != nil {
		t.Fatalf("Build(%s): %v", spec, err)
	}
	return res
}

// files reads every file below dir, by slash path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func byName(res *artifact.BuildResult) map[string]artifact.BuiltImage {
	m := map[string]artifact.BuiltImage{}
	for _, im := range res.Images {
		m[im.Name] = im
	}
	return m
}

// Acceptance 1: two builds of the same pinned inputs in different
// directories write identical layouts, byte for byte, and identical locks.
func TestBuildIsIdenticalAcrossDirectories(t *testing.T) {
	specA, resA := pinAndBuild(t)
	specB, resB := pinAndBuild(t)
	if filepath.Dir(specA) == filepath.Dir(specB) {
		t.Fatal("the two builds share a directory")
	}
	a, b := files(t, resA.Layout), files(t, resB.Layout)
	if len(a) < 8 {
		t.Fatalf("layout %s holds %d files, want manifests, configs and layers of four images", resA.Layout, len(a))
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("layouts differ between %s and %s (-a +b):\n%s", resA.Layout, resB.Layout, diff)
	}
	lockA, _ := os.ReadFile(filepath.Join(filepath.Dir(specA), "build.lock"))
	lockB, _ := os.ReadFile(filepath.Join(filepath.Dir(specB), "build.lock"))
	if !bytes.Equal(lockA, lockB) || bytes.Contains(lockA, []byte(filepath.Dir(specA))) {
		t.Errorf("locks differ or name the project directory:\n%s\n---\n%s", lockA, lockB)
	}
	if diff := cmp.Diff(byName(resA), byName(resB)); diff != "" {
		t.Errorf("digests differ (-a +b):\n%s", diff)
	}
	// A rebuild in place gives the same bytes again.
	again := build(t, specA)
	if diff := cmp.Diff(a, files(t, again.Layout)); diff != "" {
		t.Errorf("a second build in %s differs (-first +second):\n%s", resA.Layout, diff)
	}
}

// Acceptance 1: changing one service's source changes only its binary
// layer and its image; the shared base and the other images stay.
func TestChangingOneInputChangesOnlyItsLayers(t *testing.T) {
	spec, before := pinAndBuild(t)
	src := filepath.Join(filepath.Dir(spec), "cmd", "orders", "main.go")
	edit(t, src, `"orders service"`, `"orders service, version 2"`)
	if _, err := artifact.Pin(t.Context(), spec, artifact.PinOptions{}); err != nil {
		t.Fatal(err)
	}
	after := build(t, spec)
	b, a := byName(before), byName(after)
	for _, name := range []string{"catalog", "gateway"} {
		if b[name].Digest != a[name].Digest {
			t.Errorf("image %s changed (%s -> %s) though only orders' source did", name, b[name].Digest, a[name].Digest)
		}
	}
	if b["orders"].Digest == a["orders"].Digest {
		t.Fatalf("image orders kept digest %s after its source changed", a["orders"].Digest)
	}
	if b["orders"].Layers[0] != a["orders"].Layers[0] {
		t.Errorf("the base layer of orders changed: %s -> %s", b["orders"].Layers[0], a["orders"].Layers[0])
	}
	if b["orders"].Layers[1] == a["orders"].Layers[1] {
		t.Errorf("the binary layer of orders did not change")
	}
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Acceptance 2: a build whose input changed or is not pinned is refused
// before anything is written, and the error names the input.
func TestBuildRefusesUnpinnedOrChangedInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string
	}{
		{"a changed source file is named with both digests", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, "cmd", "catalog", "main.go"), `"catalog service"`, `"catalog, changed"`)
		}, "file cmd/catalog/main.go changed since it was pinned (pinned sha256:"},
		{"a new file in a pinned directory is not pinned", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "base", "etc", "hosts"), []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "file base/etc/hosts is not pinned"},
		{"a new Go file of a service is not pinned", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "cmd", "gateway", "extra.go"), []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "file cmd/gateway/extra.go is not pinned"},
		{"a removed file is pinned but gone", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "base", "etc", "group")); err != nil {
				t.Fatal(err)
			}
		}, "file base/etc/group is pinned (sha256:"},
		{"an edited build spec is named", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, "build.toml"), `labels = { "org.opencontainers.image.title" = "gateway" }`, `labels = { "org.opencontainers.image.title" = "gw" }`)
		}, "spec build.toml changed since it was pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := artifacttest.Services(t, t.TempDir())
			if _, err := artifact.Pin(t.Context(), spec, artifact.PinOptions{}); err != nil {
				t.Fatal(err)
			}
			tt.change(t, filepath.Dir(spec))
			_, err := artifact.Build(t.Context(), spec, artifact.BuildOptions{})
			var ie *artifact.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build() error = %v, want an *InputError containing %q", err, tt.want)
			}
			if !refusal.Is(err) {
				t.Errorf("refusal.Is(%v) = false", err)
			}
			if _, serr := os.Stat(filepath.Join(filepath.Dir(spec), ".piceli-build")); !errors.Is(serr, fs.ErrNotExist) {
				t.Errorf("a refused build wrote .piceli-build (stat: %v)", serr)
			}
		})
	}
}

func TestBuildWithoutALockIsRefused(t *testing.T) {
	spec := artifacttest.Services(t, t.TempDir())
	_, err := artifact.Build(context.Background(), spec, artifact.BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "no lock file") || !strings.Contains(err.Error(), "piceli artifacts pin") {
		t.Fatalf("Build() without a lock: error = %v, want it to say to pin", err)
	}
}

// Acceptance 3: the services example's three Go services and its cache
// build into four images under 30 MB each whose base layer is one blob
// stored once in the layout.
func TestServiceImagesShareOneStoredBaseLayer(t *testing.T) {
	_, res := pinAndBuild(t)
	if len(res.Images) != 4 {
		t.Fatalf("built %d images, want 4", len(res.Images))
	}
	base := res.Images[0].Layers[0]
	var sum int64
	for _, im := range res.Images {
		t.Logf("image %s: %d bytes, layers %v", im.Name, im.Size, im.Layers)
		if im.Size >= 30_000_000 {
			t.Errorf("image %s is %d bytes, want under 30 MB", im.Name, im.Size)
		}
		if im.Layers[0] != base {
			t.Errorf("image %s starts with layer %s, want the shared base %s", im.Name, im.Layers[0], base)
		}
		sum += im.Size
	}
	blob := filepath.Join(res.Layout, "blobs", "sha256", strings.TrimPrefix(base, "sha256:"))
	info, err := os.Stat(blob)
	if err != nil {
		t.Fatalf("base layer blob: %v", err)
	}
	if res.SharedBytes != info.Size() {
		t.Errorf("SharedBytes = %d, want the base layer's %d", res.SharedBytes, info.Size())
	}
	stored := int64(0)
	for _, data := range files(t, filepath.Join(res.Layout, "blobs")) {
		stored += int64(len(data))
	}
	if stored != res.StoredBytes || stored != sum-int64(len(res.Images)-1)*info.Size() {
		t.Errorf("blobs on disk hold %d bytes, StoredBytes %d; want the images' %d less %d copies of the %d-byte base", stored, res.StoredBytes, sum, len(res.Images)-1, info.Size())
	}
	t.Logf("stored %d bytes for %d bytes of images; base layer %d bytes shared; built in %s", stored, sum, info.Size(), res.Duration)
}
