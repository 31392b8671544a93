package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/release"
)

// "piceli state key" creates this machine's key when missing, owner-only,
// and prints its state_signers line; a second call prints the same line
// and creates nothing. A key file others may read is refused (exit 2).
func TestStateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "state.key")
	t.Setenv(stateKeyEnv, path)
	first := run(t, "state", "key", "--signer", "ci runner 1")
	if first.code != ExitOK || !strings.HasPrefix(first.stdout, "ed25519:") || !strings.HasSuffix(first.stdout, " ci runner 1\n") || !strings.Contains(first.stderr, "created") {
		t.Fatalf("state key: exit %d\n%s%s; want a new key's line", first.code, first.stdout, first.stderr)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v, %v; want mode 0600", path, info, err)
	}
	again := run(t, "state", "key", "--signer", "ci runner 1", "-o", "json")
	var doc struct {
		Schema string
		Key    release.StateKey
	}
	if err := json.Unmarshal([]byte(again.stdout), &doc); err != nil || doc.Schema != "piceli.state-key/v1" || doc.Key.Created || doc.Key.File != path || doc.Key.Signer+"\n" != first.stdout {
		t.Errorf("state key -o json again = %+v (%v); want the same line, not created", doc, err)
	}
	os.Chmod(path, 0o644)
	if res := run(t, "state", "key"); res.code != ExitRefused || !strings.Contains(res.stderr, "mode 0644") {
		t.Errorf("state key with a key others may read: exit %d, want 2 saying so\n%s", res.code, res.stderr)
	}
}

// A machine whose key the spec's state_signers does not list is refused
// by every command that would write the shared state, before it reads or
// writes anything: exit 2, naming its public key and the line to add; the
// state directory is not created.
func TestAnUnlistedMachineMayNotWriteTheState(t *testing.T) {
	t.Setenv(stateKeyEnv, filepath.Join(t.TempDir(), "other.key"))
	mine := run(t, "state", "key")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"release.toml": "[target]\nkubeconfig = \"k\"\ncontext = \"c\"\nnamespace = \"shop\"\n\n[release]\nname = \"shop\"\ncomposition = \"m.yaml\"\n" + sharedState,
		"m.yaml":       configMapYAML("cfg", "mode", "one"),
	})
	spec := filepath.Join(dir, "release.toml")
	id := strings.Fields(mine.stdout)[0]
	for _, args := range [][]string{
		{"release", "plan", "--spec", spec},
		{"release", "apply", "--spec", spec, "--approve", "0123456789ab"},
		{"release", "resume", "--spec", spec},
		{"release", "rollback", "--spec", spec},
		{"state", "migrate", "cluster", "--spec", spec},
	} {
		res := run(t, args...)
		if res.code != ExitRefused || !strings.Contains(res.stderr, id) || !strings.Contains(res.stderr, "is not in [release] state_signers") {
			t.Errorf("%s: exit %d, want 2 naming this machine's key %s\n%s", strings.Join(args[:2], " "), res.code, id, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".piceli-release")); err == nil {
		t.Errorf("a refused writer created the state directory")
	}
}
