package publish_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/refusal"
)

// Acceptance 4: the artifact is pushed to a registry on loopback (Debian's
// docker-registry), tagged, and pulled back by digest as the same content;
// a pull by tag is refused.
func TestPushToLoopbackRegistryAndPullBackByDigest(t *testing.T) {
	reg := artifacttest.StartRegistry(t, "")
	c := content()
	a := build(t, c)
	to, err := publish.ParseDestination("oci://" + reg.Addr + "/releases/shop:v1")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := publish.Push(t.Context(), a, to, publish.PushOptions{})
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if want := reg.Addr + "/releases/shop@" + a.Digest; ref != want {
		t.Errorf("Push = %s, want %s", ref, want)
	}
	if tagged := tagDigest(t, reg.Addr, "releases/shop", "v1"); tagged != a.Digest {
		t.Errorf("tag v1 names %q, want the pushed %s", tagged, a.Digest)
	}
	got, err := publish.Fetch(t.Context(), "oci://"+ref, artifactOptions())
	if err != nil {
		t.Fatalf("Fetch by digest: %v", err)
	}
	back, err := publish.Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("content pulled back (-want +got):\n%s", diff)
	}
	if _, err := publish.Fetch(t.Context(), "oci://"+reg.Addr+"/releases/shop:v1", artifactOptions()); !refusal.Is(err) || !strings.Contains(err.Error(), "digest") {
		t.Errorf("Fetch by tag = %v, want a refusal asking for a digest", err)
	}
}

// tagDigest asks the registry which manifest digest tag names.
func tagDigest(t *testing.T, addr, repo, tag string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodHead, "http://"+addr+"/v2/"+repo+"/manifests/"+tag, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", publish.ManifestMediaType)
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Docker-Content-Digest")
}

func TestParseDestination(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a host, a repository and a tag", "oci://127.0.0.1:5000/releases/shop:v1", "127.0.0.1:5000 releases/shop v1"},
		{"no scheme is refused", "127.0.0.1:5000/releases/shop:v1", ""},
		{"no tag is refused", "oci://127.0.0.1:5000/releases/shop", ""},
		{"a digest is refused", "oci://127.0.0.1:5000/releases/shop@sha256:" + strings.Repeat("a", 64), ""},
		{"no repository is refused", "oci://shop:v1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := publish.ParseDestination(tc.in)
			if tc.want == "" {
				if !refusal.Is(err) {
					t.Errorf("ParseDestination(%q) = %+v, %v; want a refusal", tc.in, d, err)
				}
				return
			}
			if got := d.Registry + " " + d.Repository + " " + d.Tag; err != nil || got != tc.want {
				t.Errorf("ParseDestination(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// A crafted layout is refused without reading past its bounds or through
// a symlink: a blob linked to /dev/zero, a blob whose content does not
// match its digest, an index naming two manifests.
func TestSecurityPublishedLayoutIsVerifiedAndBounded(t *testing.T) {
	a := build(t, content())
	layerHex := strings.TrimPrefix(digestOfLayer(t, a), "sha256:")
	cases := []struct {
		name   string
		damage func(dir string) error
		want   string
	}{
		{"a layer linked to /dev/zero", func(dir string) error {
			p := filepath.Join(dir, "blobs", "sha256", layerHex)
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		}, "layer"},
		{"a layer whose content is not its digest", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "blobs", "sha256", layerHex), []byte("not the layer"), 0o644)
		}, "digest"},
		{"an index naming two manifests", func(dir string) error {
			raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
			if err != nil {
				return err
			}
			s := string(raw)
			i, j := strings.Index(s, "["), strings.LastIndex(s, "]")
			return os.WriteFile(filepath.Join(dir, "index.json"), []byte(s[:i+1]+s[i+1:j]+","+s[i+1:j]+s[j:]), 0o644)
		}, "2 manifests"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "layout")
			if err := publish.WriteLayout(dir, a, "shop"); err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			_, err := publish.Fetch(t.Context(), dir, artifactOptions())
			if !refusal.Is(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fetch = %v, want a refusal mentioning %q", err, tc.want)
			}
		})
	}
}

func digestOfLayer(t *testing.T, a *publish.Artifact) string {
	t.Helper()
	i := strings.Index(string(a.Manifest), `"layers":[{"mediaType":"`+publish.ContentMediaType+`","digest":"`)
	if i < 0 {
		t.Fatalf("no content layer in %s", a.Manifest)
	}
	rest := string(a.Manifest)[i+len(`"layers":[{"mediaType":"`+publish.ContentMediaType+`","digest":"`):]
	return rest[:strings.Index(rest, `"`)]
}
