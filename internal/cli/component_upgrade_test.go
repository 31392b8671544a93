package cli

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// componentModule is the path of the example component module.
const componentModule = "example.com/piceli-components/postgres"

// TestComponentUpgradeThroughGoGet is the versioned half of the pattern
// (docs/packages.md): the component is served by a module proxy (a
// file:// one in a temporary directory) as v1.0.0 and v1.1.0, whose only
// change is DefaultCPURequest; a consumer without a replace for it
// requires v1.0.0 with `go get`, renders, upgrades with `go get @v1.1.0`
// and renders again under -mod=readonly. go.mod names the new version,
// go.sum pins it, and the render changes in exactly the line the new
// version changes. The versions carry a hash of the component's files
// (v1.0.0-c<hash>), so the machine's module cache, which keeps what it
// downloads, never serves an older content under the same version.
func TestComponentUpgradeThroughGoGet(t *testing.T) {
	root := repoRoot(t)
	src := filepath.Join(root, "examples", "components", "postgres")
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	tag := "-c" + contentHash(t, src)
	v1, v2 := "v1.0.0"+tag, "v1.1.0"+tag
	serveVersion(t, proxy, src, v1, nil)
	serveVersion(t, proxy, src, v2, func(name, body string) string {
		if name != "options.go" {
			return body
		}
		out := strings.Replace(body, `DefaultCPURequest     = "100m"`, `DefaultCPURequest     = "250m"`, 1)
		if out == body {
			t.Fatal(`options.go no longer says DefaultCPURequest = "100m"; update this test`)
		}
		return out
	})
	writeFiles(t, proxy, map[string]string{componentModule + "/@v/list": v1 + "\n" + v2 + "\n"})

	// The consumer: examples/platform without the component's require and
	// replace (go get adds the first).
	consumer := filepath.Join(tmp, "platform")
	gomod := readText(t, filepath.Join(root, "examples", "platform", "go.mod"))
	var kept []string
	for _, line := range strings.Split(gomod, "\n") {
		switch {
		case strings.Contains(line, componentModule+" "):
		case strings.HasPrefix(line, "replace github.com/pynenc/piceli"):
			kept = append(kept, "replace github.com/pynenc/piceli => "+root)
		default:
			kept = append(kept, line)
		}
	}
	sum := readText(t, filepath.Join(root, "examples", "platform", "go.sum"))
	writeFiles(t, consumer, map[string]string{
		"go.mod":       strings.Join(kept, "\n"),
		"go.sum":       sum,
		"infra.go":     readText(t, filepath.Join(root, "examples", "platform", "infra.go")),
		"release.toml": readText(t, filepath.Join(root, "examples", "platform", "release.toml")),
	})

	// The component comes from the proxy above, everything else from the
	// machine's module cache (also a proxy, as a last resort): no network.
	gocmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = consumer
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	machine := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(machine))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")

	render := func() string {
		t.Helper()
		t.Setenv("GOFLAGS", "-mod=readonly")
		defer t.Setenv("GOFLAGS", "-mod=mod")
		res := run(t, "render", "--spec", filepath.Join(consumer, "release.toml"))
		if res.code != 0 {
			t.Fatalf("render: exit %d: %s", res.code, res.stderr)
		}
		return res.stdout
	}
	gocmd("get", componentModule+"@"+v1)
	before := render()
	gocmd("get", componentModule+"@"+v2)
	after := render()

	if mod := readText(t, filepath.Join(consumer, "go.mod")); !strings.Contains(mod, componentModule+" "+v2) {
		t.Errorf("go.mod after go get @%s:\n%s\nwant it to require that version", v2, mod)
	}
	if s := readText(t, filepath.Join(consumer, "go.sum")); !strings.Contains(s, componentModule+" "+v2+" h1:") {
		t.Errorf("go.sum does not pin %s %s's content", componentModule, v2)
	}
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	if len(a) != len(b) {
		t.Fatalf("the upgrade changed the render's length from %d to %d lines:\n%s", len(b), len(a), after)
	}
	var changed []string
	for i := range b {
		if b[i] != a[i] {
			changed = append(changed, strings.TrimSpace(b[i])+" → "+strings.TrimSpace(a[i]))
		}
	}
	if len(changed) != 1 || changed[0] != "cpu: 100m → cpu: 250m" {
		t.Errorf("the upgrade changed %q, want exactly [cpu: 100m → cpu: 250m]", changed)
	}
}

// contentHash is the first 12 hex digits of a hash of the files under
// dir, their names included.
func contentHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fmt.Fprintf(h, "%s\n%s\n", path[len(dir):], readText(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// serveVersion writes version of the module in src into the file proxy at
// dir: its .info, .mod and .zip, each file passed through edit (nil: as
// it is).
func serveVersion(t *testing.T, dir, src, version string, edit func(name, body string) string) {
	t.Helper()
	at := filepath.Join(dir, filepath.FromSlash(componentModule), "@v")
	gomod := readText(t, filepath.Join(src, "go.mod"))
	writeFiles(t, at, map[string]string{
		version + ".info": `{"Version":"` + version + `","Time":"2026-12-01T00:00:00Z"}`,
		version + ".mod":  gomod,
	})
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		body := readText(t, path)
		if edit != nil {
			body = edit(filepath.ToSlash(rel), body)
		}
		w, err := zw.Create(componentModule + "@" + version + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write([]byte(body))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// readText returns a file's contents.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
