package source_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fluxcd/gitkit"
	"github.com/fluxcd/pkg/gittestserver"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/publish"
)

// gitServer is fluxcd's gittestserver (git's own upload-pack behind
// smart HTTP) on 127.0.0.1, serving one repository, repo.git.
type gitServer struct {
	srv  *gittestserver.GitServer
	repo *git.Repository
	wt   *git.Worktree
}

// startGit serves an empty repository whose default branch is main;
// user and pass, when set, are required over HTTP.
func startGit(t *testing.T, user, pass string) *gitServer {
	t.Helper()
	srv := gittestserver.NewGitServer(t.TempDir())
	if user != "" {
		srv.Auth(user, pass)
	}
	if err := srv.StartHTTP(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.StopHTTP)
	if !strings.HasPrefix(srv.HTTPAddress(), "http://127.0.0.1:") {
		t.Fatalf("git server listens on %s, want loopback", srv.HTTPAddress())
	}
	// The served bare repository is written directly: its objects and
	// references on disk, a worktree in memory to commit from.
	dir := filepath.Join(srv.Root(), "repo.git")
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}
	st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
	if err := st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))); err != nil {
		t.Fatal(err)
	}
	repo, err := git.Open(st, memfs.New())
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	return &gitServer{srv: srv, repo: repo, wt: wt}
}

func (g *gitServer) url() string { return g.srv.HTTPAddress() + "/repo.git" }

// commit writes files (an empty content removes the file) and commits
// them on the current branch.
func (g *gitServer) commit(t *testing.T, files map[string]string) string {
	t.Helper()
	fs := g.wt.Filesystem
	for name, data := range files {
		if data == "" {
			if _, err := g.wt.Remove(name); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := fs.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := fs.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := g.wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	return g.commitAll(t)
}

func (g *gitServer) commitAll(t *testing.T) string {
	t.Helper()
	h, err := g.wt.Commit("test", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(1700000000, 0)}, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// tag makes an annotated tag on commit.
func (g *gitServer) tag(t *testing.T, name, commit string) {
	t.Helper()
	_, err := g.repo.CreateTag(name, plumbing.NewHash(commit), &git.CreateTagOptions{
		Message: "release " + name, Tagger: &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(1700000000, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func gitSource(t *testing.T, spec v1alpha1.GitSource, creds source.Credentials, opts source.Options) source.Source {
	t.Helper()
	s, err := source.New(v1alpha1.Source{Git: &spec}, creds, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// fetchFiles fetches rev and returns the files written, by slash path.
func fetchFiles(t *testing.T, s source.Source, rev source.Revision) map[string]string {
	t.Helper()
	dir := t.TempDir()
	c, err := s.Fetch(t.Context(), rev, dir)
	if err != nil {
		t.Fatalf("Fetch %s: %v", rev, err)
	}
	if c.Files != dir || c.Artifact != "" || c.Revision != rev {
		t.Fatalf("Fetch = %+v, want Files %s and revision %s", c, dir, rev)
	}
	return readTree(t, dir)
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			t.Errorf("%s is not a regular file", p)
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

// A branch and an annotated tag resolve, by a remote listing, to their
// commits; a commit is taken as it is; Fetch writes the YAML and JSON
// files under Path at exactly that commit.
func TestGitBranchTagAndCommitResolveAndFetch(t *testing.T) {
	g := startGit(t, "", "")
	first := g.commit(t, map[string]string{
		"deploy/app.yaml":     configMap("first"),
		"deploy/sub/db.json":  `{"apiVersion":"v1","kind":"Service","metadata":{"name":"db","namespace":"shop"},"spec":{"ports":[{"port":5432}]}}`,
		"deploy/README.md":    "not a manifest\n",
		"deploy/run.sh":       "#!/bin/sh\n",
		"deploy/.ci/lint.yml": "hidden: skipped\n",
		"elsewhere/skip.yaml": "kind: Secret\n",
	})
	g.tag(t, "v1.0.0", first)
	second := g.commit(t, map[string]string{"deploy/app.yaml": configMap("second")})

	cases := []struct {
		spec    v1alpha1.GitSource
		id, ref string
		app     string
	}{
		{v1alpha1.GitSource{Branch: "main"}, second, "main", "second"},
		{v1alpha1.GitSource{Tag: "v1.0.0"}, first, "v1.0.0", "first"},
		{v1alpha1.GitSource{Commit: first}, first, "", "first"},
	}
	for _, c := range cases {
		c.spec.URL, c.spec.Path = g.url(), "deploy"
		s := gitSource(t, c.spec, nil, source.Options{})
		rev, err := s.Resolve(t.Context())
		if err != nil {
			t.Fatalf("%+v: Resolve: %v", c.spec, err)
		}
		if rev.ID != c.id || rev.Ref != c.ref {
			t.Errorf("%+v: Resolve = %s, want %s@%s", c.spec, rev, c.ref, c.id)
		}
		dir := t.TempDir()
		content, err := s.Fetch(t.Context(), rev, dir)
		if err != nil || content.Files != dir || content.Artifact != "" || content.Revision != rev {
			t.Fatalf("%+v: Fetch = %+v, %v; want Files %s", c.spec, content, err, dir)
		}
		// What is written is what a files composition reads.
		if objs, _, err := manifest.Read(dir); err != nil || len(objs) != 2 {
			t.Errorf("%+v: manifest.Read of the fetched files = %d objects, %v; want 2", c.spec, len(objs), err)
		}
		files := readTree(t, dir)
		if keys(files) != "app.yaml sub/db.json" {
			t.Errorf("%+v: fetched %s, want app.yaml sub/db.json only", c.spec, keys(files))
		}
		if !strings.Contains(files["app.yaml"], c.app) {
			t.Errorf("%+v: app.yaml = %q, want the %s commit's", c.spec, files["app.yaml"], c.app)
		}
	}

	missing := gitSource(t, v1alpha1.GitSource{URL: g.url(), Branch: "nope"}, nil, source.Options{})
	if _, err := missing.Resolve(t.Context()); err == nil || !strings.Contains(err.Error(), `"nope" not found`) {
		t.Errorf("Resolve of a missing branch = %v, want not found", err)
	}
	absent := strings.Repeat("ab", 20)
	pinned := gitSource(t, v1alpha1.GitSource{URL: g.url(), Commit: absent}, nil, source.Options{})
	if _, err := pinned.Fetch(t.Context(), source.Revision{ID: absent}, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Fetch of a commit the repository lacks = %v, want not found", err)
	}
}

// A new commit on the branch is what the next Resolve returns, and the
// revision resolved before still fetches its own content.
func TestGitNewCommitOnTheBranchResolvesToIt(t *testing.T) {
	g := startGit(t, "", "")
	old := g.commit(t, map[string]string{"app.yaml": "v: old\n"})
	s := gitSource(t, v1alpha1.GitSource{URL: g.url(), Branch: "main"}, nil, source.Options{})
	before, err := s.Resolve(t.Context())
	if err != nil || before.ID != old {
		t.Fatalf("Resolve = %s, %v; want %s", before, err, old)
	}
	next := g.commit(t, map[string]string{"app.yaml": "v: new\n"})
	after, err := s.Resolve(t.Context())
	if err != nil || after.ID != next {
		t.Fatalf("Resolve after a new commit = %s, %v; want %s", after, err, next)
	}
	if got := fetchFiles(t, s, after)["app.yaml"]; got != "v: new\n" {
		t.Errorf("new revision fetched %q", got)
	}
	if got := fetchFiles(t, s, before)["app.yaml"]; got != "v: old\n" {
		t.Errorf("earlier revision, fetched after the branch moved, gave %q, want v: old", got)
	}
}

// HTTP basic auth comes from username and password; a wrong password
// fails and no error carries it (the canary).
func TestGitHTTPBasicAuthAndCredentialCanary(t *testing.T) {
	const user, canary = "deployer", "canary-Git-7d1c02ea"
	g := startGit(t, user, canary)
	commit := g.commit(t, map[string]string{"app.yaml": "v: private\n"})
	spec := v1alpha1.GitSource{URL: g.url(), Branch: "main"}

	if _, err := gitSource(t, spec, nil, source.Options{}).Resolve(t.Context()); err == nil {
		t.Error("Resolve without credentials succeeded against a server that requires them")
	}
	bad := gitSource(t, spec, source.Credentials{"username": []byte(user), "password": []byte(canary + "-wrong")}, source.Options{})
	_, err := bad.Resolve(t.Context())
	if err == nil {
		t.Fatal("Resolve with a wrong password succeeded")
	}
	assertNoCanary(t, err, canary)
	_, err = bad.Fetch(t.Context(), source.Revision{ID: commit}, t.TempDir())
	if err == nil {
		t.Fatal("Fetch with a wrong password succeeded")
	}
	assertNoCanary(t, err, canary)

	good := gitSource(t, spec, source.Credentials{"username": []byte(user), "password": []byte(canary)}, source.Options{})
	rev, err := good.Resolve(t.Context())
	if err != nil || rev.ID != commit {
		t.Fatalf("Resolve with credentials = %s, %v; want %s", rev, err, commit)
	}
	if got := fetchFiles(t, good, rev)["app.yaml"]; got != "v: private\n" {
		t.Errorf("fetched %q", got)
	}

	// A URL carrying the credentials is refused, and the refusal does
	// not repeat them.
	withCreds := strings.Replace(g.url(), "http://", "http://"+user+":"+canary+"@", 1)
	_, err = source.New(v1alpha1.Source{Git: &v1alpha1.GitSource{URL: withCreds, Branch: "main"}}, nil, source.Options{})
	assertSpecError(t, err, "spec.source.git.url")
	assertNoCanary(t, err, canary)
}

// The errors of a Git source never carry a credential, even when the
// server's own message quotes what it was sent.
func TestGitErrorsNeverCarryCredentials(t *testing.T) {
	const canary = "canary-Token-51b8e3aa"
	g := startGit(t, "", "")
	g.srv.AddHTTPMiddlewares(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "refused "+r.Header.Get("Authorization"), http.StatusForbidden)
		})
	})
	if err := g.srv.StartHTTP(); err != nil {
		t.Fatal(err)
	}
	s := gitSource(t, v1alpha1.GitSource{URL: g.srv.HTTPAddress() + "/repo.git", Branch: "main"}, source.Credentials{"bearerToken": []byte(canary)}, source.Options{})
	_, err := s.Resolve(t.Context())
	if err == nil {
		t.Fatal("Resolve against a refusing server succeeded")
	}
	assertNoCanary(t, err, canary)
	_, err = s.Fetch(t.Context(), source.Revision{ID: strings.Repeat("1", 40)}, t.TempDir())
	if err == nil {
		t.Fatal("Fetch against a refusing server succeeded")
	}
	assertNoCanary(t, err, canary)
	t.Logf("refused: %v", err)
}

// SSH takes the identity and checks the server's host key against
// known_hosts: a host key that is not the one known is refused.
func TestGitSSHWithKnownHosts(t *testing.T) {
	g := startGit(t, "", "")
	commit := g.commit(t, map[string]string{"app.yaml": "v: ssh\n"})
	keyDir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	clientKey, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	identity := pem.EncodeToMemory(block)
	g.srv.KeyDir(keyDir).Auth("", "")
	var accepted atomic.Int32
	g.srv.PublicKeyLookupFunc(func(content string) (*gitkit.PublicKey, error) {
		if content != strings.TrimSpace(string(ssh.MarshalAuthorizedKey(clientKey))) {
			return nil, fmt.Errorf("unknown key")
		}
		accepted.Add(1)
		return &gitkit.PublicKey{Id: "deployer"}, nil
	})
	if err := g.srv.ListenSSH(); err != nil {
		t.Fatal(err)
	}
	go g.srv.StartSSH()
	t.Cleanup(func() { g.srv.StopSSH() })
	addr := strings.TrimPrefix(g.srv.SSHAddress(), "ssh://git@")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("ssh server on %s, want loopback", addr)
	}
	hostKey := readPublicKey(t, filepath.Join(keyDir, "gitkit.rsa.pub"))
	known := knownhosts.Line([]string{addr}, hostKey) + "\n"

	spec := v1alpha1.GitSource{URL: g.srv.SSHAddress() + "/repo.git", Branch: "main"}
	s := gitSource(t, spec, source.Credentials{"identity": identity, "known_hosts": []byte(known)}, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil || rev.ID != commit {
		t.Fatalf("Resolve over SSH = %s, %v; want %s", rev, err, commit)
	}
	if got := fetchFiles(t, s, rev)["app.yaml"]; got != "v: ssh\n" {
		t.Errorf("fetched %q", got)
	}
	if accepted.Load() == 0 {
		t.Error("the server never saw the identity")
	}

	// Over SSH too the pack a clone receives is bounded.
	noise := make([]byte, 4096)
	rand.Read(noise)
	big := g.commit(t, map[string]string{"assets/noise.bin": string(noise)})
	bounded := gitSource(t, spec, source.Credentials{"identity": identity, "known_hosts": []byte(known)}, source.Options{MaxBytes: 2048})
	_, err = bounded.Fetch(t.Context(), source.Revision{ID: big}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "sends more than 2048 bytes, the bound") {
		t.Errorf("Fetch over SSH of a 4 KiB pack bounded at 2 KiB = %v, want a refusal naming the bound", err)
	}

	// Another RSA key for the server's address, and the right key for
	// another address: both are refused.
	otherRSA, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := ssh.NewPublicKey(&otherRSA.PublicKey)
	for want, hosts := range map[string]string{
		"key mismatch":   knownhosts.Line([]string{addr}, otherKey),
		"key is unknown": knownhosts.Line([]string{"127.0.0.2:22"}, hostKey),
	} {
		ws := gitSource(t, spec, source.Credentials{"identity": identity, "known_hosts": []byte(hosts + "\n")}, source.Options{})
		_, err = ws.Resolve(t.Context())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Resolve with known_hosts %q = %v, want %s", hosts, err, want)
		}
		if strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("error carries the identity: %v", err)
		}
	}

	_, err = source.New(v1alpha1.Source{Git: &spec}, source.Credentials{"identity": identity}, source.Options{})
	assertSpecError(t, err, "spec.source.git.secretRef")
	_, err = source.New(v1alpha1.Source{Git: &spec}, nil, source.Options{})
	assertSpecError(t, err, "spec.source.git.secretRef")
}

func readPublicKey(t *testing.T, path string) ssh.PublicKey {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Files over the byte bound, or more files than the file bound, are
// refused.
func TestGitFetchIsBounded(t *testing.T) {
	g := startGit(t, "", "")
	commit := g.commit(t, map[string]string{"a.yaml": strings.Repeat("x", 600), "b.yaml": "small: 1\n"})
	rev := source.Revision{ID: commit}
	spec := v1alpha1.GitSource{URL: g.url(), Commit: commit}
	for _, o := range []source.Options{{MaxBytes: 500}, {MaxFiles: 1}} {
		dir := t.TempDir()
		_, err := gitSource(t, spec, nil, o).Fetch(t.Context(), rev, dir)
		if err == nil || !strings.Contains(err.Error(), "bound") {
			t.Errorf("Fetch with %+v = %v, want a refusal naming the bound", o, err)
		}
		assertEmpty(t, dir)
	}
	if files := fetchFiles(t, gitSource(t, spec, nil, source.Options{MaxBytes: 609, MaxFiles: 2}), rev); len(files) != 2 {
		t.Errorf("Fetch at exactly the bounds wrote %s", keys(files))
	}
}

// A symbolic link or a submodule under Path is refused, and nothing is
// written outside dir.
func TestGitRefusesSymlinks(t *testing.T) {
	g := startGit(t, "", "")
	g.commit(t, map[string]string{"deploy/app.yaml": "v: 1\n"})
	if err := g.wt.Filesystem.Symlink("../../../../etc/passwd", "deploy/link.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.wt.Add("deploy/link.yaml"); err != nil {
		t.Fatal(err)
	}
	commit := g.commitAll(t)
	s := gitSource(t, v1alpha1.GitSource{URL: g.url(), Commit: commit, Path: "deploy"}, nil, source.Options{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := s.Fetch(t.Context(), source.Revision{ID: commit}, dir)
	if err == nil || !strings.Contains(err.Error(), "deploy/link.yaml is a symbolic link") {
		t.Fatalf("Fetch of a tree with a symlink = %v, want a refusal naming it", err)
	}
	if left := readTree(t, parent); len(left) != 0 {
		t.Errorf("a refused Fetch left %s", keys(left))
	}
}

// A Path that holds neither an OCI layout nor a manifest, or no
// directory at all, is an error naming it.
func TestGitPathWithoutManifestsIsAnError(t *testing.T) {
	g := startGit(t, "", "")
	commit := g.commit(t, map[string]string{"docs/README.md": "hello\n", "app.yaml": "v: 1\n"})
	for _, p := range []string{"docs", "missing", "app.yaml"} {
		s := gitSource(t, v1alpha1.GitSource{URL: g.url(), Commit: commit, Path: p}, nil, source.Options{})
		_, err := s.Fetch(t.Context(), source.Revision{ID: commit}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("spec.source.git.path %q", p)) {
			t.Errorf("Fetch of path %s = %v, want an error naming it", p, err)
		}
	}
}

// A Path holding an OCI layout written by piceli publish is fetched as
// that published release.
func TestGitPathWithAPublishedLayoutIsAnArtifact(t *testing.T) {
	g := startGit(t, "", "")
	a := release(t, "from-git")
	layout := t.TempDir()
	if err := publish.WriteLayout(layout, a, "shop"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for name, data := range readTree(t, layout) {
		files["release/"+name] = data
	}
	commit := g.commit(t, files)
	s := gitSource(t, v1alpha1.GitSource{URL: g.url(), Branch: "main", Path: "release"}, nil, source.Options{})
	rev, err := s.Resolve(t.Context())
	if err != nil || rev.ID != commit {
		t.Fatalf("Resolve = %s, %v", rev, err)
	}
	dir := t.TempDir()
	c, err := s.Fetch(t.Context(), rev, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Artifact != dir || c.Files != "" {
		t.Fatalf("Fetch = %+v, want Artifact %s", c, dir)
	}
	back, err := publish.Fetch(t.Context(), dir, artifact.RegistryOptions{})
	if err != nil || back.Digest != a.Digest {
		t.Fatalf("layout fetched = %v, %v; want %s", back, err, a.Digest)
	}

	// A layout whose blob was altered is refused.
	var blob string
	for name := range files {
		if strings.Contains(name, "blobs/sha256/") && files[name] == string(a.Layer) {
			blob = name
		}
	}
	g.commit(t, map[string]string{blob: "tampered"})
	rev, _ = s.Resolve(t.Context())
	if _, err := s.Fetch(t.Context(), rev, t.TempDir()); err == nil || !strings.Contains(err.Error(), "piceli publish") {
		t.Errorf("Fetch of a tampered layout = %v, want a refusal", err)
	}
}

// What a clone receives over HTTP is bounded too: a repository whose
// pack is over MaxBytes is refused even when the big file lies outside
// Path. (TestGitSSHWithKnownHosts checks the same bound over SSH.)
func TestGitCloneIsBounded(t *testing.T) {
	g := startGit(t, "", "")
	noise := make([]byte, 4096)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	commit := g.commit(t, map[string]string{"deploy/app.yaml": "v: 1\n", "assets/noise.bin": string(noise)})
	for _, sel := range []v1alpha1.GitSource{{Branch: "main"}, {Commit: commit}} {
		sel.URL, sel.Path = g.url(), "deploy"
		_, err := gitSource(t, sel, nil, source.Options{MaxBytes: 2048}).Fetch(t.Context(), source.Revision{ID: commit}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "2048 bytes") || !strings.Contains(err.Error(), "bound") {
			t.Errorf("Fetch %+v of a 4 KiB pack bounded at 2 KiB = %v, want a refusal naming the bound", sel, err)
		}
		if files := fetchFiles(t, gitSource(t, sel, nil, source.Options{MaxBytes: 64 << 10}), source.Revision{ID: commit}); keys(files) != "app.yaml" {
			t.Errorf("Fetch within the bound wrote %s", keys(files))
		}
	}
}

// A server that advertises references without end is cut off at the
// bound: listing references over HTTP reads at most MaxBytes.
func TestGitEndlessAdvertisementIsBounded(t *testing.T) {
	const limit = 64 << 10
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		pkt := func(s string) bool {
			n, err := fmt.Fprintf(w, "%04x%s", len(s)+4, s)
			sent.Add(int64(n))
			return err == nil
		}
		pkt("# service=git-upload-pack\n")
		fmt.Fprint(w, "0000")
		hash := strings.Repeat("1", 40)
		pkt(hash + " HEAD\x00multi_ack side-band-64k ofs-delta\n")
		for i := 0; sent.Load() < 16<<20 && pkt(fmt.Sprintf("%s refs/heads/b%08d\n", hash, i)); i++ {
		}
		fmt.Fprint(w, "0000")
	}))
	t.Cleanup(srv.Close)
	s := gitSource(t, v1alpha1.GitSource{URL: srv.URL + "/repo.git", Branch: "main"}, nil, source.Options{MaxBytes: limit})
	_, err := s.Resolve(t.Context())
	if err == nil || !strings.Contains(err.Error(), "bound") {
		t.Fatalf("Resolve against an endless advertisement = %v, want a refusal naming the bound", err)
	}
	t.Logf("refused after the server wrote %d bytes: %v", sent.Load(), err)
}

func configMap(value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  commit: " + value + "\n"
}

// A repository crafted with tree entries named "..", or holding a
// slash, cannot place a file outside dir: the entry is refused.
func TestGitTreeEntryNamesCannotEscape(t *testing.T) {
	g := startGit(t, "", "")
	g.commit(t, map[string]string{"app.yaml": "v: 1\n"})
	st := g.repo.Storer
	put := func(o interface {
		Encode(plumbing.EncodedObject) error
	}, typ plumbing.ObjectType) plumbing.Hash {
		t.Helper()
		obj := st.NewEncodedObject()
		obj.SetType(typ)
		if err := o.Encode(obj); err != nil {
			t.Fatal(err)
		}
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	blob := st.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	w, _ := blob.Writer()
	w.Write([]byte("kind: Evil\n"))
	w.Close()
	blobHash, err := st.SetEncodedObject(blob)
	if err != nil {
		t.Fatal(err)
	}
	inner := put(&object.Tree{Entries: []object.TreeEntry{{Name: "evil.yaml", Mode: filemode.Regular, Hash: blobHash}}}, plumbing.TreeObject)
	for _, entry := range []object.TreeEntry{
		{Name: "..", Mode: filemode.Dir, Hash: inner},
		{Name: "../../escaped.yaml", Mode: filemode.Regular, Hash: blobHash},
		{Name: "sub/../../escaped.yaml", Mode: filemode.Regular, Hash: blobHash},
	} {
		root := put(&object.Tree{Entries: []object.TreeEntry{entry}}, plumbing.TreeObject)
		sig := object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(1700000000, 0)}
		commit := put(&object.Commit{Author: sig, Committer: sig, Message: "crafted", TreeHash: root}, plumbing.CommitObject)
		if err := st.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("crafted"), commit)); err != nil {
			t.Fatal(err)
		}
		s := gitSource(t, v1alpha1.GitSource{URL: g.url(), Branch: "crafted"}, nil, source.Options{})
		rev, err := s.Resolve(t.Context())
		if err != nil || rev.ID != commit.String() {
			t.Fatalf("Resolve = %s, %v; want %s", rev, err, commit)
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, "a", "b")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err = s.Fetch(t.Context(), rev, dir)
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("Fetch of a tree entry %q = %v, want it refused", entry.Name, err)
		}
		if left := readTree(t, parent); len(left) != 0 {
			t.Errorf("entry %q: Fetch wrote %s", entry.Name, keys(left))
		}
	}
}
