package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/artifacttest"
)

// The artifacts commands end with exit 2 and a message naming the file,
// line and key, the drifted input, the damaged blob or the missing grant,
// and write nothing.
func TestArtifactsRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := artifacttest.Services(t, dir)

	bad := filepath.Join(t.TempDir(), "build.toml")
	os.WriteFile(bad, []byte("[image.api]\ngo = \"./api\"\nuser = 7\n"), 0o644)
	res := run(t, "artifacts", "pin", "--spec", bad)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "build.toml:3") || !strings.Contains(res.stderr, "user") {
		t.Errorf("pin of a bad build.toml: exit %d, stderr %q; want exit 2 naming line 3 and the key", res.code, res.stderr)
	}
	unknown := filepath.Join(t.TempDir(), "build.toml")
	os.WriteFile(unknown, []byte("[image.api]\ngo = \"./api\"\nentrypont = [\"/x\"]\n"), 0o644)
	res = run(t, "artifacts", "build", "--spec", unknown)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "build.toml:3: image.api.entrypont: unknown key") {
		t.Errorf("build with an unknown key: exit %d, stderr %q", res.code, res.stderr)
	}

	res = run(t, "artifacts", "build", "--spec", spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "no lock file") {
		t.Errorf("build before pin: exit %d, stderr %q; want exit 2 saying to pin", res.code, res.stderr)
	}
	if res = run(t, "artifacts", "pin", "--spec", spec); res.code != ExitOK {
		t.Fatalf("pin: exit %d, stderr %s", res.code, res.stderr)
	}
	if res = run(t, "artifacts", "build", "--spec", spec); res.code != ExitOK || !strings.Contains(res.stdout, "shared between images") {
		t.Fatalf("build: exit %d, stdout %s, stderr %s", res.code, res.stdout, res.stderr)
	}
	layout := filepath.Join(dir, ".piceli-build", "oci")

	res = run(t, "artifacts", "import", layout, "--deliver", "containerd")
	if res.code != ExitRefused || !strings.Contains(res.stderr, "runs ctr, which is not granted; nothing was run") || !strings.Contains(res.stderr, "pass --grant ctr=PATH") {
		t.Errorf("import without grant: exit %d, stderr %q", res.code, res.stderr)
	}

	os.WriteFile(filepath.Join(dir, "cmd", "orders", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	before, _ := os.ReadFile(filepath.Join(layout, "index.json"))
	res = run(t, "artifacts", "build", "--spec", spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "file cmd/orders/main.go changed since it was pinned") {
		t.Errorf("build after an unpinned change: exit %d, stderr %q", res.code, res.stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(layout, "index.json")); string(after) != string(before) {
		t.Errorf("a refused build changed the layout")
	}

	res = run(t, "artifacts", "inspect", layout)
	if res.code != ExitOK || !strings.Contains(res.stdout, "shared by 4 images") {
		t.Errorf("inspect: exit %d, stdout %s", res.code, res.stdout)
	}
	blobs, _ := os.ReadDir(filepath.Join(layout, "blobs", "sha256"))
	os.Remove(filepath.Join(layout, "blobs", "sha256", blobs[0].Name()))
	res = run(t, "artifacts", "inspect", layout)
	if res.code != ExitRefused || !strings.Contains(res.stdout, "DAMAGED") || !strings.Contains(res.stderr, blobs[0].Name()) {
		t.Errorf("inspect of a damaged layout: exit %d, stdout %s, stderr %s", res.code, res.stdout, res.stderr)
	}
}
