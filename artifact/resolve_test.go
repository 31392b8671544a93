package artifact_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/refusal"
)

// Resolve gives the digest reference a build recorded, with another
// registry host when asked, and refuses a layout that is missing, lacks
// the image or was built from another lock.
func TestResolveReadsTheBuildsDigest(t *testing.T) {
	spec, res := pinAndBuild(t)
	want := byName(res)["orders"]
	got, err := artifact.Resolve(spec, "orders", "")
	if err != nil || got != want.Reference {
		t.Fatalf("Resolve(orders) = %q, %v; want %q", got, err, want.Reference)
	}
	got, err = artifact.Resolve(spec, "orders", "localhost:5000")
	if err != nil || got != "localhost:5000/services/orders@"+want.Digest {
		t.Errorf("Resolve(orders, localhost:5000) = %q, %v", got, err)
	}
	if _, err := artifact.Resolve(spec, "billing", ""); err == nil || !strings.Contains(err.Error(), "no [image.billing]") {
		t.Errorf("Resolve(billing) error = %v", err)
	}
	lock := filepath.Join(filepath.Dir(spec), "build.lock")
	data, _ := os.ReadFile(lock)
	os.WriteFile(lock, append(data, '\n'), 0o644)
	if _, err := artifact.Resolve(spec, "orders", ""); err == nil || !refusal.Is(err) || !strings.Contains(err.Error(), "built from another lock") {
		t.Errorf("Resolve after the lock changed: error = %v, want a refusal asking for a build", err)
	}
	os.RemoveAll(res.Layout)
	if _, err := artifact.Resolve(spec, "orders", ""); err == nil || !strings.Contains(err.Error(), "is not built") {
		t.Errorf("Resolve without a layout: error = %v", err)
	}
}

// A failing tool's output reaches the receipt's error only with every
// environment value removed: a tool that prints the environment's secret
// leaves no trace of it in the receipt or the returned error.
func TestReceiptOfAFailedImportHoldsNoSecret(t *testing.T) {
	_, res := pinAndBuild(t)
	t.Setenv("PICELI_TEST_SECRET", canary)
	tool := filepath.Join(t.TempDir(), "ctr")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ctr leaky 1.0'; exit 0; fi\n" +
		"cat >/dev/null\necho \"cannot import: token=$PICELI_TEST_SECRET\" >&2\nexit 3\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := artifact.Import(t.Context(), res.Layout, artifact.ImportOptions{Target: artifact.TargetContainerd, Grants: []artifact.Grant{{Tool: "ctr", Path: tool}}})
	if err == nil || rec == nil || rec.Outcome != artifact.OutcomeFailed {
		t.Fatalf("Import through a failing tool = %v, receipt %+v; want failed", err, rec)
	}
	text := receiptText(t, rec)
	assertNoCanary(t, "the receipt", text)
	assertNoCanary(t, "the error", err.Error())
	if !strings.Contains(rec.Error, "cannot import: token=[secret]") {
		t.Errorf("receipt error = %q, want the tool's message with the secret redacted", rec.Error)
	}
}
