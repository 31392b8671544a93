package source_test

import (
	"io"
	"log"
	"os"
	"testing"
)

func nilLogger() *log.Logger { return log.New(io.Discard, "", 0) }

// assertEmpty fails unless dir holds nothing.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("%s holds %d entries after a refused fetch, want none", dir, len(entries))
	}
}
