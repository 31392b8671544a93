package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the command tree")

// TestReference keeps docs/cli.md equal to the reference generated from
// the command tree.
func TestReference(t *testing.T) {
	var buf bytes.Buffer
	WriteReference(&buf)
	path := filepath.Join(repoRoot(t), "docs", "cli.md")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with go test ./internal/cli -run TestReference -update)", path, err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("%s is out of date with the command tree; regenerate it with: go test ./internal/cli -run TestReference -update", path)
	}
}
