package artifact_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/refusal"
)

// Acceptance 6: inspect verifies every blob: a sound layout lists its
// images and the shared layer; a flipped byte and a removed blob are both
// found and named.
func TestInspectFindsCorruptAndMissingBlobs(t *testing.T) {
	_, res := pinAndBuild(t)
	rep, err := artifact.Inspect(res.Layout)
	if err != nil {
		t.Fatalf("Inspect(sound layout): %v", err)
	}
	if len(rep.Images) != 4 || rep.SharedBytes == 0 || len(rep.Problems) != 0 {
		t.Fatalf("Inspect(sound layout) = %d images, %d shared bytes, problems %v", len(rep.Images), rep.SharedBytes, rep.Problems)
	}
	corrupt := strings.TrimPrefix(res.Images[0].Layers[1], "sha256:")
	missing := strings.TrimPrefix(res.Images[1].Layers[1], "sha256:")
	blob := func(hex string) string { return filepath.Join(res.Layout, "blobs", "sha256", hex) }
	data, err := os.ReadFile(blob(corrupt))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(blob(corrupt), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(blob(missing)); err != nil {
		t.Fatal(err)
	}
	rep, err = artifact.Inspect(res.Layout)
	var ce *artifact.CorruptError
	if !errors.As(err, &ce) || !refusal.Is(err) {
		t.Fatalf("Inspect(damaged layout) error = %v, want a *CorruptError", err)
	}
	text := strings.Join(rep.Problems, "\n")
	for _, want := range []string{"layer sha256:" + corrupt + ": corrupt: content has digest", "layer sha256:" + missing + ": missing"} {
		if !strings.Contains(text, want) {
			t.Errorf("problems:\n%s\nwant one containing %q", text, want)
		}
	}
	if len(rep.Problems) != 2 {
		t.Errorf("problems = %q, want exactly the two damaged blobs", rep.Problems)
	}
}
