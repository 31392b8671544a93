package chart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/refusal"
)

func slicesSort(s []string) { slices.Sort(s) }

const canary = "canary-outside-the-chart-5f1e"

// A chart directory whose template is a symlink to a file outside it: Helm's
// own directory loader follows it; Piceli refuses the chart.
func TestSecurityChartSymlinkOutOfItsFolderIsRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	write(filepath.Dir(outside), "secret.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+canary+"}\n")
	dir := copyChart(t, "testdata/stack")
	if err := os.Symlink(outside, filepath.Join(dir, "templates", "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := Digest(dir)
	if err == nil || !refusal.Is(err) || !strings.Contains(err.Error(), "templates/leak.yaml is not a regular file") {
		t.Fatalf("Digest(chart with a symlink) error = %v, want a refusal naming templates/leak.yaml", err)
	}
	_, err = Render(t.Context(), Source{Path: dir, Digest: "sha256:any"}, stackOpts)
	if err == nil || strings.Contains(err.Error(), canary) {
		t.Fatalf("Render(chart with a symlink) error = %v, want a refusal that read nothing outside", err)
	}
}

// A template that asks .Files for paths outside the chart gets nothing.
func TestSecurityChartFilesGetStaysInTheChart(t *testing.T) {
	parent := t.TempDir()
	write(parent, "outside.txt", canary)
	dir := filepath.Join(parent, "chart")
	if err := os.CopyFS(dir, os.DirFS("testdata/stack")); err != nil {
		t.Fatal(err)
	}
	write(dir, "templates/peek.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: peek}
data:
  a: {{ .Files.Get "../outside.txt" | quote }}
  b: {{ .Files.Get "../../outside.txt" | quote }}
  c: {{ .Files.Get "/etc/hostname" | quote }}
  d: {{ (.Files.Glob "../*").AsConfig | quote }}
`)
	for _, o := range renderStack(t, dir, nil) {
		data, _ := o.Object.MarshalJSON()
		if strings.Contains(string(data), canary) {
			t.Fatalf("%s carries a file from outside the chart: %s", o.Origin, data)
		}
	}
}

// A packaged chart with a ../ entry is refused before anything renders.
func TestSecurityChartArchiveWithDotDotEntryIsRefused(t *testing.T) {
	tgz := filepath.Join(t.TempDir(), "evil.tgz")
	writeArchive(t, tgz, map[string]string{"evil/Chart.yaml": "apiVersion: v2\nname: evil\nversion: 1.0.0\n",
		"evil/../../escape.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + canary + "}\n"})
	_, err := Digest(tgz)
	if err == nil || !refusal.Is(err) {
		t.Fatalf("Digest(archive with ../) error = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(tgz), "..", "escape.yaml")); err == nil {
		t.Fatal("a file was written outside the archive's folder")
	}
}
