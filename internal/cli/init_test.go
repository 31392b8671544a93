package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitThenRender(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "webshop")
	res := run(t, "init", dir, "--piceli-source", repoRoot(t))
	if res.code != 0 {
		t.Fatalf("init: exit %d: %s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "replace github.com/pynenc/piceli => "+repoRoot(t)) {
		t.Errorf("init does not say how the module reaches Piceli:\n%s", res.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		t.Errorf("init left no go.sum: %v", err)
	}
	key := run(t, "state", "key")
	spec, _ := os.ReadFile(filepath.Join(dir, "release.toml"))
	id := strings.Fields(key.stdout)[0]
	if !strings.Contains(string(spec), "state_signers = [\n  \""+id+" ") || !strings.Contains(res.stdout, "release.toml trusts this machine") {
		t.Errorf("init does not list this machine's key %s in state_signers, or does not say so:\n%s\n%s", id, spec, res.stdout)
	}
	r := run(t, "render", "--spec", filepath.Join(dir, "release.toml"))
	if r.code != 0 {
		t.Fatalf("render of a new project: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "kind: Deployment") || !strings.Contains(r.stdout, "namespace: webshop") {
		t.Errorf("render of a new project lacks its Deployment in namespace webshop:\n%s", r.stdout)
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"infra.go": "mine"})
	res := run(t, "init", dir, "--app", "x", "--piceli-source", repoRoot(t), "--no-tidy")
	if res.code != ExitRefused || !strings.Contains(res.stderr, "infra.go: file already exists") {
		t.Fatalf("init over an existing infra.go: exit %d, stderr %q; want exit 2 naming infra.go", res.code, res.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "infra.go")); string(data) != "mine" {
		t.Errorf("init changed an existing file")
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		t.Errorf("a refused init still wrote go.mod")
	}
}
