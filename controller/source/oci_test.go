package source_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/publish"
)

// release is a small published release whose ConfigMap carries value, so
// each value gives another digest.
func release(t *testing.T, value string) *publish.Artifact {
	t.Helper()
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": "shop"},
		"data":     map[string]any{"value": value},
	}}
	c := &publish.Content{Manifests: []*unstructured.Unstructured{cm}, Metadata: publish.Metadata{
		Schema: publish.MetadataSchema, Release: "shop", Namespace: "shop", Wait: "ready",
		Objects: []publish.ObjectInfo{{File: "000-configmap-shop-settings.yaml", Ref: "ConfigMap/shop/settings", Origin: "test"}},
	}}
	a, err := publish.Build(c)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return a
}

// testRegistry is go-containerregistry's registry on 127.0.0.1, behind
// optional basic auth and a hook that may rewrite requests.
type testRegistry struct {
	addr     string
	user     string
	pass     string
	authOn   atomic.Bool
	rewrite  atomic.Pointer[func(*http.Request)]
	requests atomic.Int64
	// headless answers HEAD without Docker-Content-Digest, as some
	// registries do.
	headless atomic.Bool
}

// noDigestHeader drops Docker-Content-Digest from a response.
type noDigestHeader struct{ http.ResponseWriter }

func (w noDigestHeader) WriteHeader(code int) {
	w.Header().Del("Docker-Content-Digest")
	w.ResponseWriter.WriteHeader(code)
}

func startRegistry(t *testing.T, user, pass string) *testRegistry {
	t.Helper()
	r := &testRegistry{user: user, pass: pass}
	inner := registry.New(registry.Logger(nilLogger()))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		if r.authOn.Load() {
			u, p, ok := req.BasicAuth()
			if !ok || u != r.user || p != r.pass {
				// A careless registry echoes what it was sent: the
				// error must still not carry the password.
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				msg, _ := json.Marshal("wrong credentials " + u + ":" + p + " " + req.Header.Get("Authorization"))
				fmt.Fprintf(w, `{"errors":[{"code":"UNAUTHORIZED","message":%s}]}`, msg)
				return
			}
		}
		if f := r.rewrite.Load(); f != nil {
			(*f)(req)
		}
		if req.Method == http.MethodHead && r.headless.Load() {
			w = noDigestHeader{w}
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.addr = strings.TrimPrefix(srv.URL, "http://")
	if !strings.HasPrefix(r.addr, "127.0.0.1:") {
		t.Fatalf("registry listens on %s, want loopback", r.addr)
	}
	return r
}

func (r *testRegistry) push(t *testing.T, a *publish.Artifact, repo, tag string) {
	t.Helper()
	to := publish.Destination{Registry: r.addr, Repository: repo, Tag: tag}
	if _, err := publish.Push(t.Context(), a, to, publish.PushOptions{}); err != nil {
		t.Fatalf("push %s:%s: %v", repo, tag, err)
	}
}

func ociSource(t *testing.T, spec v1alpha1.OCISource, creds source.Credentials, opts source.Options) source.Source {
	t.Helper()
	s, err := source.New(v1alpha1.Source{OCI: &spec}, creds, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// fetchRelease fetches rev and reads the release back from the layout.
func fetchRelease(t *testing.T, s source.Source, rev source.Revision) *publish.Content {
	t.Helper()
	dir := t.TempDir()
	c, err := s.Fetch(t.Context(), rev, dir)
	if err != nil {
		t.Fatalf("Fetch %s: %v", rev, err)
	}
	if c.Artifact != dir || c.Files != "" || c.Revision != rev {
		t.Fatalf("Fetch = %+v, want Artifact %s and revision %s", c, dir, rev)
	}
	a, err := publish.Fetch(t.Context(), dir, artifact.RegistryOptions{})
	if err != nil {
		t.Fatalf("read the layout written: %v", err)
	}
	if a.Digest != rev.ID {
		t.Fatalf("layout holds %s, want %s", a.Digest, rev.ID)
	}
	content, err := publish.Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	return content
}

func configValue(c *publish.Content) string {
	v, _, _ := unstructured.NestedString(c.Manifests[0].Object, "data", "value")
	return v
}

// A tag resolves to the digest pushed under it, and Fetch writes exactly
// that release as an OCI layout.
func TestOCITagResolvesToItsDigestAndFetchesIt(t *testing.T) {
	reg := startRegistry(t, "", "")
	a := release(t, "one")
	reg.push(t, a, "releases/shop", "stable")
	s := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/releases/shop", Tag: "stable", Insecure: true}, nil, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rev.ID != a.Digest || rev.Ref != "stable" {
		t.Fatalf("Resolve = %s, want stable@%s", rev, a.Digest)
	}
	if got := configValue(fetchRelease(t, s, rev)); got != "one" {
		t.Errorf("fetched release carries %q, want one", got)
	}
	// A registry whose HEAD carries no digest is asked with GET.
	reg.headless.Store(true)
	if again, err := s.Resolve(t.Context()); err != nil || again != rev {
		t.Errorf("Resolve from a registry answering HEAD without a digest = %s, %v; want %s", again, err, rev)
	}
	reg.headless.Store(false)
	// The tag moves: the next Resolve follows it.
	b := release(t, "two")
	reg.push(t, b, "releases/shop", "stable")
	if rev, err = s.Resolve(t.Context()); err != nil || rev.ID != b.Digest {
		t.Errorf("Resolve after the tag moved = %s, %v; want %s", rev, err, b.Digest)
	}
}

// A semver range follows the highest tag inside it, ignoring tags
// above it and tags that are no version.
func TestOCISemVerPicksTheHighestTagInRange(t *testing.T) {
	reg := startRegistry(t, "", "")
	want := release(t, "1.10")
	reg.push(t, release(t, "1.0"), "shop", "v1.0.0")
	reg.push(t, release(t, "1.2"), "shop", "1.2.0")
	reg.push(t, want, "shop", "v1.10.0")
	reg.push(t, release(t, "2.0"), "shop", "v2.0.0")
	reg.push(t, release(t, "latest"), "shop", "latest")
	reg.push(t, release(t, "rc"), "shop", "v1.11.0-rc.1")
	s := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", SemVer: ">=1.0.0 <2.0.0", Insecure: true}, nil, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rev.ID != want.Digest || rev.Ref != "v1.10.0" {
		t.Fatalf("Resolve = %s, want v1.10.0@%s", rev, want.Digest)
	}
	if got := configValue(fetchRelease(t, s, rev)); got != "1.10" {
		t.Errorf("fetched %q, want 1.10", got)
	}
	none := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", SemVer: ">=3", Insecure: true}, nil, source.Options{})
	if _, err := none.Resolve(t.Context()); err == nil || !strings.Contains(err.Error(), "range") {
		t.Errorf("Resolve of a range no tag is in = %v, want an error naming the range", err)
	}
}

// A digest pins one revision; a digest the registry lacks fails Fetch,
// and a registry answering a digest with another manifest is caught.
func TestOCIDigestPinsExactlyThatManifest(t *testing.T) {
	reg := startRegistry(t, "", "")
	a, other := release(t, "pinned"), release(t, "other")
	reg.push(t, a, "shop", "v1")
	reg.push(t, other, "shop", "v2")
	url := "oci://" + reg.addr + "/shop"
	s := ociSource(t, v1alpha1.OCISource{URL: url, Digest: a.Digest, Insecure: true}, nil, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil || rev.ID != a.Digest || rev.Ref != "" {
		t.Fatalf("Resolve = %s, %v; want %s alone", rev, err, a.Digest)
	}
	if got := configValue(fetchRelease(t, s, rev)); got != "pinned" {
		t.Errorf("fetched %q, want pinned", got)
	}

	missing := "sha256:" + strings.Repeat("0", 64)
	m := ociSource(t, v1alpha1.OCISource{URL: url, Digest: missing, Insecure: true}, nil, source.Options{})
	if _, err := m.Fetch(t.Context(), source.Revision{ID: missing}, t.TempDir()); err == nil {
		t.Error("Fetch of a digest the registry lacks succeeded")
	}

	// The registry answers a's digest with other's manifest.
	swap := func(req *http.Request) {
		req.URL.Path = strings.Replace(req.URL.Path, a.Digest, other.Digest, 1)
	}
	reg.rewrite.Store(&swap)
	dir := t.TempDir()
	_, err = s.Fetch(t.Context(), rev, dir)
	if err == nil || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("Fetch of a swapped manifest = %v, want a refusal naming the digest", err)
	}
	t.Logf("refused: %v", err)
	assertEmpty(t, dir)
}

// An image that is not a release written by piceli publish is refused
// and nothing is written.
func TestOCIRefusesAnArtifactPiceliDidNotPublish(t *testing.T) {
	reg := startRegistry(t, "", "")
	img, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.NewTag(reg.addr+"/shop:plain", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithContext(t.Context())); err != nil {
		t.Fatal(err)
	}
	s := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", Tag: "plain", Insecure: true}, nil, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := s.Fetch(t.Context(), rev, dir); err == nil || !strings.Contains(err.Error(), "piceli publish") {
		t.Fatalf("Fetch of a plain image = %v, want a refusal naming piceli publish", err)
	}
	assertEmpty(t, dir)
}

// Registry credentials come from the Secret's .dockerconfigjson for the
// registry's host; a wrong password fails without the password in the
// error; no credentials fail too.
func TestOCICredentialsFromDockerConfigJSON(t *testing.T) {
	const user, canary = "robot", "canary-Secret-9f3e1d7b"
	reg := startRegistry(t, user, canary)
	a := release(t, "private")
	reg.push(t, a, "private/shop", "v1")
	reg.authOn.Store(true)
	spec := v1alpha1.OCISource{URL: "oci://" + reg.addr + "/private/shop", Tag: "v1", Insecure: true}

	if _, err := ociSource(t, spec, nil, source.Options{}).Resolve(t.Context()); err == nil {
		t.Error("Resolve without credentials succeeded against a registry that requires them")
	} else {
		t.Logf("without credentials: %v", err)
	}
	wrong := canary + "-wrong"
	bad := ociSource(t, spec, dockerConfig(reg.addr, user, wrong), source.Options{})
	_, err := bad.Resolve(t.Context())
	if err == nil {
		t.Fatal("Resolve with a wrong password succeeded")
	}
	assertNoCanary(t, err, canary)
	_, err = bad.Fetch(t.Context(), source.Revision{ID: a.Digest}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "wrong credentials") {
		t.Fatalf("Fetch with a wrong password = %v, want the registry's refusal", err)
	}
	assertNoCanary(t, err, canary)
	t.Logf("wrong password: %v", err)

	// "auth" (base64 USER:PASSWORD) under a URL key works as well.
	cfg, _ := json.Marshal(map[string]any{"auths": map[string]any{"http://" + reg.addr + "/v2/": map[string]string{
		"auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + canary)),
	}}})
	for _, creds := range []source.Credentials{dockerConfig(reg.addr, user, canary), {source.DockerConfigKey: cfg}} {
		s := ociSource(t, spec, creds, source.Options{})
		rev, err := s.Resolve(t.Context())
		if err != nil || rev.ID != a.Digest {
			t.Fatalf("Resolve with credentials = %s, %v; want %s", rev, err, a.Digest)
		}
		if got := configValue(fetchRelease(t, s, rev)); got != "private" {
			t.Errorf("fetched %q, want private", got)
		}
	}

	_, err = source.New(v1alpha1.Source{OCI: &spec}, dockerConfig("other.example:5000", user, canary), source.Options{})
	assertSpecError(t, err, "spec.source.oci.secretRef")
	assertNoCanary(t, err, canary)
	_, err = source.New(v1alpha1.Source{OCI: &spec}, source.Credentials{"username": []byte(user)}, source.Options{})
	assertSpecError(t, err, "spec.source.oci.secretRef")
}

func dockerConfig(host, user, pass string) source.Credentials {
	cfg, _ := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]string{"username": user, "password": pass}}})
	return source.Credentials{source.DockerConfigKey: cfg}
}

// Without insecure the registry is reached over HTTPS only: a plain
// HTTP registry is refused, and no request reaches it over HTTP.
func TestOCIPlainHTTPOnlyWhenInsecure(t *testing.T) {
	reg := startRegistry(t, "", "")
	reg.push(t, release(t, "x"), "shop", "v1")
	before := reg.requests.Load()
	s := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", Tag: "v1"}, nil, source.Options{})
	_, err := s.Resolve(t.Context())
	if err == nil || !strings.Contains(err.Error(), "insecure") {
		t.Fatalf("Resolve of a plain HTTP registry without insecure = %v, want a refusal naming insecure", err)
	}
	if n := reg.requests.Load() - before; n != 0 {
		t.Errorf("%d plain HTTP requests reached the registry", n)
	}
}

// What Fetch reads is bounded: a release over MaxBytes is refused.
func TestOCIFetchIsBounded(t *testing.T) {
	reg := startRegistry(t, "", "")
	a := release(t, strings.Repeat("x", 4096))
	reg.push(t, a, "shop", "v1")
	s := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", Digest: a.Digest, Insecure: true}, nil, source.Options{MaxBytes: a.Bytes() - 1})
	dir := t.TempDir()
	if _, err := s.Fetch(t.Context(), source.Revision{ID: a.Digest}, dir); err == nil || !strings.Contains(err.Error(), "bound") {
		t.Fatalf("Fetch over the bound = %v, want a refusal naming the bound", err)
	}
	assertEmpty(t, dir)
	ok := ociSource(t, v1alpha1.OCISource{URL: "oci://" + reg.addr + "/shop", Digest: a.Digest, Insecure: true}, nil, source.Options{MaxBytes: a.Bytes()})
	fetchRelease(t, ok, source.Revision{ID: a.Digest})
}

func assertSpecError(t *testing.T, err error, field string) {
	t.Helper()
	var se *source.SpecError
	if !errors.As(err, &se) || se.Field != field {
		t.Errorf("error = %v, want a SpecError on %s", err, field)
	}
}

func assertNoCanary(t *testing.T, err error, canary string) {
	t.Helper()
	for _, form := range []string{canary, base64.StdEncoding.EncodeToString([]byte(canary))} {
		if strings.Contains(err.Error(), form) {
			t.Errorf("error carries the credential: %v", err)
		}
	}
}
