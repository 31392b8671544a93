package secret

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/wire"
)

// fixture is a resolver over a temporary state and release directory with
// a fake environment and cluster.
type fixture struct {
	r       *Resolver
	env     map[string]string
	cluster map[string]string // "secret/key" → value
	reads   int               // ReadCluster calls
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{env: map[string]string{}, cluster: map[string]string{}}
	f.r = &Resolver{
		Store:   openStore(t),
		BaseDir: t.TempDir(),
		LookupEnv: func(name string) (string, bool) {
			v, ok := f.env[name]
			return v, ok
		},
		ReadCluster: func(_ context.Context, secret, key string) ([]byte, error) {
			f.reads++
			v, ok := f.cluster[secret+"/"+key]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return []byte(v), nil
		},
	}
	return f
}

func (f *fixture) writeFile(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(f.r.BaseDir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) resolve(t *testing.T, decl wire.SecretInfo, opts ResolveOptions) (*Version, bool) {
	t.Helper()
	v, changed, err := f.r.Resolve(context.Background(), decl, opts)
	if err != nil {
		t.Fatalf("Resolve(%s) error = %v", decl.Name, err)
	}
	return v, changed
}

func decl(keys ...wire.SecretKeyInfo) wire.SecretInfo {
	return wire.SecretInfo{Name: "db", Keys: keys}
}

func generated(key string, length int, alphabet string) wire.SecretKeyInfo {
	return wire.SecretKeyInfo{Key: key, Source: wire.SourceGenerated, Length: length, Alphabet: alphabet}
}

func fromFile(key, path string) wire.SecretKeyInfo {
	return wire.SecretKeyInfo{Key: key, Source: wire.SourceFile, Ref: path}
}

func fromEnv(key, name string) wire.SecretKeyInfo {
	return wire.SecretKeyInfo{Key: key, Source: wire.SourceEnv, Ref: name}
}

func fromCluster(key, ref string) wire.SecretKeyInfo {
	return wire.SecretKeyInfo{Key: key, Source: wire.SourceCluster, Ref: ref}
}

func generatedTLS(cn string, hosts ...string) []wire.SecretKeyInfo {
	crt := wire.SecretKeyInfo{Key: "tls.crt", Source: wire.SourceGeneratedTLS, Ref: cn, Hosts: hosts}
	key := crt
	key.Key = "tls.key"
	return []wire.SecretKeyInfo{crt, key}
}

// step is one Resolve after setting files and variables.
type step struct {
	decl        wire.SecretInfo
	files, env  map[string]string
	wantChanged bool
	wantNumber  int
	wantKeys    []string // ChangedKeys(previous step's version, this one)
}

func TestResolveVersions(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "a generated value is generated once and kept",
			steps: []step{
				{decl: decl(generated("password", 24, wire.DefaultAlphabet)), wantChanged: true, wantNumber: 1, wantKeys: []string{"password"}},
				{decl: decl(generated("password", 24, wire.DefaultAlphabet)), wantNumber: 1},
				{decl: decl(generated("password", 24, wire.DefaultAlphabet)), wantNumber: 1},
			},
		},
		{
			name: "a generated value is regenerated when its length changes",
			steps: []step{
				{decl: decl(generated("password", 24, "")), wantChanged: true, wantNumber: 1, wantKeys: []string{"password"}},
				{decl: decl(generated("password", 25, "")), wantChanged: true, wantNumber: 2, wantKeys: []string{"password"}},
			},
		},
		{
			name: "a generated value is regenerated when its alphabet changes",
			steps: []step{
				{decl: decl(generated("pin", 6, "0123456789")), wantChanged: true, wantNumber: 1, wantKeys: []string{"pin"}},
				{decl: decl(generated("pin", 6, "abcdef")), wantChanged: true, wantNumber: 2, wantKeys: []string{"pin"}},
			},
		},
		{
			name: "spelling out the default length and alphabet is no change",
			steps: []step{
				{decl: decl(generated("password", 0, "")), wantChanged: true, wantNumber: 1, wantKeys: []string{"password"}},
				{decl: decl(generated("password", 32, wire.DefaultAlphabet)), wantNumber: 1},
			},
		},
		{
			name: "a changed file gives a new version naming its key",
			steps: []step{
				{decl: decl(fromFile("cert", "certs/a.pem"), generated("pw", 8, "")), files: map[string]string{"certs/a.pem": "one"},
					wantChanged: true, wantNumber: 1, wantKeys: []string{"cert", "pw"}},
				{decl: decl(fromFile("cert", "certs/a.pem"), generated("pw", 8, "")), files: map[string]string{"certs/a.pem": "two"},
					wantChanged: true, wantNumber: 2, wantKeys: []string{"cert"}},
			},
		},
		{
			name: "a changed environment variable gives a new version naming its key",
			steps: []step{
				{decl: decl(fromEnv("token", "TOKEN"), fromEnv("user", "USER")), env: map[string]string{"TOKEN": "a", "USER": "u"},
					wantChanged: true, wantNumber: 1, wantKeys: []string{"token", "user"}},
				{decl: decl(fromEnv("token", "TOKEN"), fromEnv("user", "USER")), env: map[string]string{"TOKEN": "b", "USER": "u"},
					wantChanged: true, wantNumber: 2, wantKeys: []string{"token"}},
			},
		},
		{
			name: "unchanged files and variables give no new version",
			steps: []step{
				{decl: decl(fromFile("cert", "a.pem"), fromEnv("token", "TOKEN")), files: map[string]string{"a.pem": "one"}, env: map[string]string{"TOKEN": "a"},
					wantChanged: true, wantNumber: 1, wantKeys: []string{"cert", "token"}},
				{decl: decl(fromFile("cert", "a.pem"), fromEnv("token", "TOKEN")), wantNumber: 1},
			},
		},
		{
			name: "a moved file with the same content is a new version without changed keys",
			steps: []step{
				{decl: decl(fromFile("cert", "a.pem")), files: map[string]string{"a.pem": "same"}, wantChanged: true, wantNumber: 1, wantKeys: []string{"cert"}},
				{decl: decl(fromFile("cert", "b.pem")), files: map[string]string{"b.pem": "same"}, wantChanged: true, wantNumber: 2},
			},
		},
		{
			name: "an added and a removed key give a new version naming both",
			steps: []step{
				{decl: decl(fromEnv("a", "A")), env: map[string]string{"A": "1", "B": "2"}, wantChanged: true, wantNumber: 1, wantKeys: []string{"a"}},
				{decl: decl(fromEnv("b", "B")), wantChanged: true, wantNumber: 2, wantKeys: []string{"a", "b"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var prev *Version
			for i, s := range tt.steps {
				for name, content := range s.files {
					f.writeFile(t, name, content)
				}
				for name, value := range s.env {
					f.env[name] = value
				}
				v, changed := f.resolve(t, s.decl, ResolveOptions{})
				if changed != s.wantChanged || v.Number != s.wantNumber {
					t.Errorf("step %d: Resolve() = version %d, changed %v, want version %d, changed %v", i, v.Number, changed, s.wantNumber, s.wantChanged)
				}
				if diff := cmp.Diff(s.wantKeys, ChangedKeys(prev, v)); diff != "" {
					t.Errorf("step %d: ChangedKeys() (-want +got):\n%s", i, diff)
				}
				prev = v
			}
		})
	}
}

func TestResolveStoresWhatItReturns(t *testing.T) {
	f := newFixture(t)
	v, _ := f.resolve(t, decl(generated("password", 16, "")), ResolveOptions{})
	stored, err := f.r.Store.Latest("db")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, stored, cmp.AllowUnexported(Version{})); diff != "" {
		t.Errorf("Latest(db) after Resolve (-returned +stored):\n%s", diff)
	}
}

func TestResolveDryRunWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.env["TOKEN"] = "a"
	first, _ := f.resolve(t, decl(fromEnv("token", "TOKEN")), ResolveOptions{})
	before := listing(t, f.r.Store.Dir())
	f.env["TOKEN"] = "b"
	v, changed := f.resolve(t, decl(fromEnv("token", "TOKEN"), generated("pw", 8, "")), ResolveOptions{DryRun: true})
	if !changed || v.Number != first.Number+1 {
		t.Errorf("Resolve(DryRun) = version %d, changed %v, want version %d, changed true", v.Number, changed, first.Number+1)
	}
	if diff := cmp.Diff(before, listing(t, f.r.Store.Dir())); diff != "" {
		t.Errorf("store listing after a dry run (-before +after):\n%s", diff)
	}
}

// listing returns every path under dir with its size.
func listing(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		out[p] = info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResolveImportsFromTheClusterOnce(t *testing.T) {
	f := newFixture(t)
	f.cluster["other-app/token"] = "imported"
	d := decl(fromCluster("token", "other-app/token"))
	first, _ := f.resolve(t, d, ResolveOptions{})
	f.cluster["other-app/token"] = "changed later"
	second, changed := f.resolve(t, d, ResolveOptions{})
	if f.reads != 1 || changed || second.Number != first.Number {
		t.Errorf("two Resolves read the cluster %d times, second changed %v, want 1 read and no change", f.reads, changed)
	}
	if got := string(second.Values()["token"]); got != "imported" {
		t.Errorf("Values()[token] = %q, want the first import", got)
	}
}

func TestResolveSourceErrors(t *testing.T) {
	tests := []struct {
		name       string
		decl       wire.SecretInfo
		noCluster  bool
		want       string
		wantSource bool
	}{
		{
			name:       "a missing file names the secret, key and file",
			decl:       wire.SecretInfo{Name: "db-credentials", Keys: []wire.SecretKeyInfo{fromFile("password", "config/pw.txt")}},
			want:       `secret "db-credentials" key "password": file config/pw.txt: no such file or directory`,
			wantSource: true,
		},
		{
			name:       "an unset variable names the secret, key and variable",
			decl:       wire.SecretInfo{Name: "api-token", Keys: []wire.SecretKeyInfo{fromEnv("token", "API_TOKEN")}},
			want:       `secret "api-token" key "token": environment variable API_TOKEN is not set`,
			wantSource: true,
		},
		{
			name:       "an absent cluster secret names the secret, key and reference",
			decl:       decl(fromCluster("token", "other-app/token")),
			want:       `secret "db" key "token": cluster secret other-app/token: file does not exist`,
			wantSource: true,
		},
		{
			name:      "a cluster source without a cluster says one is needed",
			decl:      decl(fromCluster("token", "other-app/token")),
			noCluster: true,
			want:      `secret "db" key "token": cluster secret other-app/token: a cluster is needed to import this value`,
		},
		{
			name:       "an unknown source kind is refused",
			decl:       decl(wire.SecretKeyInfo{Key: "k", Source: "vault"}),
			want:       `secret "db" key "k": unknown source "vault"`,
			wantSource: true,
		},
		{
			name:       "half a tls pair is refused",
			decl:       decl(generatedTLS("shop")[0]),
			want:       `secret "db" key "tls.crt": generated-tls needs tls.crt and tls.key from one source`,
			wantSource: true,
		},
		{
			name:       "a secret without keys is refused",
			decl:       decl(),
			want:       `secret "db": no keys`,
			wantSource: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.noCluster {
				f.r.ReadCluster = nil
			}
			_, _, err := f.r.Resolve(context.Background(), tt.decl, ResolveOptions{})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Resolve() error = %v, want %s", err, tt.want)
			}
			if errors.Is(err, ErrSource) != tt.wantSource {
				t.Errorf("errors.Is(%v, ErrSource) = %v, want %v", err, !tt.wantSource, tt.wantSource)
			}
			if entries, _ := os.ReadDir(f.r.Store.Dir()); len(entries) != 0 {
				t.Errorf("a failed Resolve left %d entries in the store", len(entries))
			}
		})
	}
}

func TestResolveRefusesAnOversizedFile(t *testing.T) {
	f := newFixture(t)
	f.writeFile(t, "big", strings.Repeat("x", maxFileSize+1))
	_, _, err := f.r.Resolve(context.Background(), decl(fromFile("k", "big")), ResolveOptions{})
	if want := `secret "db" key "k": file big: larger than 1 MiB`; err == nil || err.Error() != want {
		t.Errorf("Resolve() error = %v, want %s", err, want)
	}
}
