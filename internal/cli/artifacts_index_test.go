package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectRefusesABadIndexWithoutQuotingIt covers two minor items of
// issue 28: artifacts inspect exited 1 on an unreadable index.json, and an
// index.json symlinked to a private file showed that file's first byte in
// its error. Both now exit 2, and the error quotes nothing of the file.
func TestInspectRefusesABadIndexWithoutQuotingIt(t *testing.T) {
	base := t.TempDir()
	private := filepath.Join(base, "private")
	writeFiles(t, base, map[string]string{"private": "Zsecret-token-Q", "truncated/index.json": `{"schemaVersion": 2, "manifests": [{"digest": "sha256:` + "\n"})
	if err := os.Chmod(private, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"symlinked", "directory/index.json", "missing"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(private, filepath.Join(base, "symlinked", "index.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, layout, want string
	}{
		{"an index.json symlinked to a private file", "symlinked", "not a regular file"},
		{"an index.json that is a directory", "directory", "index.json"},
		{"a layout without index.json", "missing", "index.json"},
		{"a truncated index.json", "truncated", "not an OCI image index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, "artifacts", "inspect", filepath.Join(base, tt.layout))
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) {
				t.Fatalf("inspect: exit %d, stderr:\n%s\nwant exit 2 naming %q", res.code, res.stderr, tt.want)
			}
			for _, leak := range []string{"'Z'", "Zsecret", "secret-token", "'\\n'"} {
				if strings.Contains(res.stderr, leak) {
					t.Errorf("inspect's error shows %q of the file:\n%s", leak, res.stderr)
				}
			}
		})
	}
}
