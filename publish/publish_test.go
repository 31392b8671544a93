package publish_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/wire"
)

const pinned = "registry.example/web@sha256:1111111111111111111111111111111111111111111111111111111111111111"

func obj(kind, name string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": "shop"}}}
	if kind == "Deployment" {
		u.SetAPIVersion("apps/v1")
	}
	for k, v := range fields {
		u.Object[k] = v
	}
	return u
}

func deployment(image string) *unstructured.Unstructured {
	return obj("Deployment", "web", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "web", "image": image}},
	}}}})
}

// content is a small release: a ConfigMap, a declared Secret (no values)
// and a Deployment, with metadata describing them.
func content(manifests ...*unstructured.Unstructured) *publish.Content {
	if manifests == nil {
		manifests = []*unstructured.Unstructured{
			obj("ConfigMap", "settings", map[string]any{"data": map[string]any{"b": "2", "a": "1"}}),
			obj("Secret", "creds", nil),
			deployment(pinned),
		}
	}
	c := &publish.Content{Manifests: manifests, Metadata: publish.Metadata{
		Schema: publish.MetadataSchema, Release: "shop", Namespace: "shop", Wait: "ready",
		Secrets: []wire.SecretInfo{{Name: "creds", Keys: []wire.SecretKeyInfo{{Key: "password", Source: wire.SourceFile, Ref: "secret/password"}}}},
		Images:  map[string]string{"web": pinned},
	}}
	for i, u := range manifests {
		c.Metadata.Objects = append(c.Metadata.Objects, publish.ObjectInfo{File: fileName(i, u), Ref: u.GetKind() + "/shop/" + u.GetName(), Origin: "test"})
	}
	return c
}

func fileName(i int, u *unstructured.Unstructured) string {
	return strings.ToLower(strings.Join([]string{"00" + string(rune('0'+i)), u.GetKind(), u.GetNamespace(), u.GetName()}, "-")) + ".yaml"
}

func build(t *testing.T, c *publish.Content) *publish.Artifact {
	t.Helper()
	a, err := publish.Build(c)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return a
}

// Acceptance 4 (the pure half): the same content gives the same bytes,
// however its maps were built; another content gives another digest.
func TestBuildIsDeterministic(t *testing.T) {
	a, b := build(t, content()), build(t, content())
	if a.Digest != b.Digest || !bytes.Equal(a.Layer, b.Layer) || !bytes.Equal(a.Manifest, b.Manifest) {
		t.Fatalf("two builds of the same content differ: %s and %s", a.Digest, b.Digest)
	}
	other := content()
	other.Manifests[0].Object["data"] = map[string]any{"a": "changed"}
	if c := build(t, other); c.Digest == a.Digest {
		t.Errorf("a changed ConfigMap gives the same digest %s", c.Digest)
	}
}

// The artifact is what `flux push artifact` writes: an OCI manifest, the
// Flux config media type and one tar+gzip content layer; its tar has sorted
// entries, the epoch as every time, fixed modes and no owner.
func TestBuildWritesTheFluxLayout(t *testing.T) {
	a := build(t, content())
	var m struct {
		MediaType string
		Config    struct{ MediaType string }
		Layers    []struct{ MediaType, Digest string }
	}
	if err := json.Unmarshal(a.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	got := []string{m.MediaType, m.Config.MediaType}
	for _, l := range m.Layers {
		got = append(got, l.MediaType)
	}
	want := []string{"application/vnd.oci.image.manifest.v1+json", "application/vnd.cncf.flux.config.v1+json", "application/vnd.cncf.flux.content.v1.tar+gzip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("media types (-want +got):\n%s", diff)
	}
	var names []string
	for _, h := range tarHeaders(t, a.Layer) {
		names = append(names, h.Name)
		if h.ModTime.Unix() != 0 || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("entry %s: time %v, owner %d:%d %q:%q; want the epoch and no owner", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if want := map[byte]int64{tar.TypeReg: 0o644, tar.TypeDir: 0o755}[h.Typeflag]; h.Mode != want {
			t.Errorf("entry %s: mode %o, want %o", h.Name, h.Mode, want)
		}
	}
	wantNames := []string{".piceli/", ".piceli/release-metadata", "000-configmap-shop-settings.yaml", "001-secret-shop-creds.yaml", "002-deployment-shop-web.yaml"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("tar entries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNames, a.Files); diff != "" {
		t.Errorf("Artifact.Files (-want +got):\n%s", diff)
	}
}

func tarHeaders(t *testing.T, layer []byte) []*tar.Header {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header carries name %q and time %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var out []*tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
}

func TestBuildRefuses(t *testing.T) {
	cases := []struct {
		name      string
		manifests []*unstructured.Unstructured
		want      []string
	}{
		{"a Secret carrying data", []*unstructured.Unstructured{obj("Secret", "creds", map[string]any{"data": map[string]any{"password": "Y2FuYXJ5"}})},
			[]string{"Secret/shop/creds", "carries values"}},
		{"a Secret carrying stringData", []*unstructured.Unstructured{obj("Secret", "creds", map[string]any{"stringData": map[string]any{"password": "canary"}})},
			[]string{"Secret/shop/creds", "carries values"}},
		{"an image by tag", []*unstructured.Unstructured{deployment("registry.example/web:1.0")},
			[]string{"Deployment/shop/web", `"registry.example/web:1.0"`, "not pinned by digest"}},
		{"a container without an image", []*unstructured.Unstructured{deployment("")},
			[]string{"Deployment/shop/web", "not pinned by digest"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := publish.Build(content(tc.manifests...))
			if !refusal.Is(err) {
				t.Fatalf("Build = %v, want a refusal", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build error %q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "canary") || strings.Contains(err.Error(), "Y2FuYXJ5") {
				t.Errorf("Build error %q quotes the secret value", err)
			}
		})
	}
}

// An artifact written as an OCI layout reads back as the same content.
func TestLayoutReadsBackTheContent(t *testing.T) {
	c := content()
	a := build(t, c)
	dir := filepath.Join(t.TempDir(), "layout")
	if err := publish.WriteLayout(dir, a, "shop"); err != nil {
		t.Fatal(err)
	}
	got, err := publish.Fetch(t.Context(), dir, artifactOptions())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got.Digest != a.Digest {
		t.Errorf("Fetch digest %s, want %s", got.Digest, a.Digest)
	}
	back, err := publish.Decode(got)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("content read back (-want +got):\n%s", diff)
	}
}

// A directory holding other files is never written into.
func TestWriteLayoutRefusesADirectoryOfOtherFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := publish.WriteLayout(dir, build(t, content()), "shop")
	if !refusal.Is(err) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("WriteLayout = %v, want a refusal naming notes.txt", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err == nil {
		t.Error("WriteLayout wrote index.json into a directory it refused")
	}
}
