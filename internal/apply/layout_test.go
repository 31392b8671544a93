package apply

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLatestRunNeverLeavesTheRunsDirectory: the latest-run pointer can
// come from shared state; one that names a path ("../../x", "a/b") is an
// error, so RequestStop and the journal never open a file outside runs/.
func TestLatestRunNeverLeavesTheRunsDirectory(t *testing.T) {
	tests := []struct {
		name, pointer string
		ok            bool
	}{
		{"a run id is the latest run", "20260101-000000-abcdef\n", true},
		{"a path up and out is refused", "../../outside\n", false},
		{"a path into a folder is refused", "a/b\n", false},
		{"dot-dot is refused", "..\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(runsDir(dir), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(runsDir(dir), "latest"), []byte(tt.pointer), 0o600); err != nil {
				t.Fatal(err)
			}
			run, err := LatestRun(dir)
			if tt.ok != (err == nil) {
				t.Fatalf("LatestRun(pointer %q) = %q, %v; want ok %v", tt.pointer, run, err, tt.ok)
			}
		})
	}
}
