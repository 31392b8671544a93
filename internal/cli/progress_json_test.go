package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/progress"
)

// updateProgress regenerates testdata/progress.jsonl. It is not -update,
// which docs_test.go already defines for docs/cli.md.
var updateProgress = flag.Bool("update-progress", false, "rewrite testdata/progress.jsonl from the fixture run")

// TestProgressJSONGolden keeps the JSON-lines stream of a fixed run equal
// to testdata/progress.jsonl.
func TestProgressJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	feed(jsonLines(&buf), compensatedRun())
	path := filepath.Join("testdata", "progress.jsonl")
	if *updateProgress {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with go test ./internal/cli -run TestProgressJSONGolden -update-progress)", path, err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("jsonLines(compensatedRun()) differs from %s (-want +got):\n%s\nregenerate it with: go test ./internal/cli -run TestProgressJSONGolden -update-progress", path, diff)
	}
}

// TestProgressJSONOneObjectPerEvent reads the stream back: one line per
// event, each with the schema and every field of its event.
func TestProgressJSONOneObjectPerEvent(t *testing.T) {
	var buf bytes.Buffer
	want := compensatedRun()
	feed(jsonLines(&buf), want)
	var got []progress.Event
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var line struct {
			Schema string `json:"schema"`
			progress.Event
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d: %v: %s", len(got)+1, err, sc.Bytes())
		}
		if line.Schema != "piceli.progress/v1" {
			t.Errorf("line %d: schema %q, want piceli.progress/v1", len(got)+1, line.Schema)
		}
		got = append(got, line.Event)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events read back from jsonLines differ (-want +got):\n%s", diff)
	}
}
