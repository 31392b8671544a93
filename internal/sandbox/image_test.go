package sandbox

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func testExecImage(t *testing.T) ExecImage {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "hello")
	if err := os.WriteFile(exe, []byte("#!not really an ELF\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return ExecImage{Ref: "localhost/piceli-test/hello:1", Executable: exe, Args: []string{"serve", ":8080"}}
}

// The tarball holds one image tagged Ref whose only layer is the executable
// at the root, run as the entrypoint, for linux on this architecture.
func TestExecImageTarball(t *testing.T) {
	spec := testExecImage(t)
	var buf bytes.Buffer
	if err := spec.WriteTarball(&buf); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(spec.Ref)
	img, err := tarball.Image(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil }, &tag)
	if err != nil {
		t.Fatalf("read back %s: %v", spec.Ref, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got := []string{cfg.OS, cfg.Architecture, cfg.Config.Entrypoint[0], cfg.Config.Cmd[0], cfg.Config.Cmd[1]}
	if diff := cmp.Diff([]string{"linux", runtime.GOARCH, "/hello", "serve", ":8080"}, got); diff != "" {
		t.Errorf("image config (-want +got):\n%s", diff)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers = %d, %v; want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	hdr, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	content, _ := io.ReadAll(tr)
	want, _ := os.ReadFile(spec.Executable)
	if hdr.Name != "hello" || hdr.Mode != 0o755 || hdr.Uid != 0 || !bytes.Equal(content, want) {
		t.Errorf("layer file = %s mode %o uid %d %q; want hello 755 uid 0 %q", hdr.Name, hdr.Mode, hdr.Uid, content, want)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("layer holds more than the executable: %v", err)
	}
}

// The same executable always gives the same image digest: no timestamps
// or owners of the build machine leak in.
func TestExecImageIsReproducible(t *testing.T) {
	spec := testExecImage(t)
	first, err := spec.Image()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(spec.Executable, epoch.AddDate(30, 0, 0), epoch.AddDate(30, 0, 0)); err != nil {
		t.Fatal(err)
	}
	second, err := spec.Image()
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := first.Digest()
	d2, _ := second.Digest()
	if d1 != d2 {
		t.Errorf("digests %s and %s differ for the same executable", d1, d2)
	}
}

// An OCI layout names the image in its index by the full reference, which
// is what ctr uses to name an imported layout.
func TestExecImageLayoutNamesRef(t *testing.T) {
	spec := testExecImage(t)
	dir := filepath.Join(t.TempDir(), "layout")
	if err := spec.WriteLayout(dir); err != nil {
		t.Fatal(err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("index manifests = %+v, %v; want one", m, err)
	}
	if got := m.Manifests[0].Annotations[refNameAnnotation]; got != spec.Ref {
		t.Errorf("index annotation %s = %q, want %q", refNameAnnotation, got, spec.Ref)
	}
}

func TestExecImageRefusesBadReference(t *testing.T) {
	spec := testExecImage(t)
	spec.Ref = "Not A Reference"
	if err := spec.WriteTarball(io.Discard); err == nil {
		t.Error("WriteTarball with reference \"Not A Reference\" succeeded, want an error")
	}
}
