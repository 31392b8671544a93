package bench

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/publish"
)

// Running the controller scenario alone replaces only its section of the
// results file: the rest stays as the last full run wrote it.
func TestSpliceSectionReplacesOnlyTheControllerSection(t *testing.T) {
	doc := "# Performance\n\n## Results\n\nold table\n"
	one := controllerSection(ctlFigures{Releases: 200, Objects: 25, Pass: 12 * time.Second, RSS: 100 << 20, Requests: 400})
	got := spliceSection(doc, ctlHeading, one)
	if !strings.HasPrefix(got, doc) || !strings.Contains(got, "| a no-op pass over all 200 | 12.0 s | at most 30s | met |") {
		t.Fatalf("appended section:\n%s", got)
	}
	got = spliceSection(got+"\n## Later\n\nkept\n", ctlHeading, controllerSection(ctlFigures{Releases: 200, Objects: 25, Pass: 40 * time.Second, RSS: 300 << 20, Requests: 400}))
	if strings.Count(got, ctlHeading) != 1 || strings.Contains(got, "12.0 s") || !strings.Contains(got, "40.0 s | at most 30s | **missed**") ||
		!strings.Contains(got, "\n## Later\n\nkept\n") || !strings.HasPrefix(got, doc) {
		t.Fatalf("replaced section:\n%s", got)
	}
}

// Each Release's artifact holds n objects in its namespace, in the mix the
// results describe, and builds.
func TestControllerContentBuilds(t *testing.T) {
	c := ctlContent("scale-007", 25)
	kinds := map[string]int{}
	for _, u := range c.Manifests {
		kinds[u.GetKind()]++
		if u.GetNamespace() != "scale-007" {
			t.Fatalf("%s in namespace %q", u.GetName(), u.GetNamespace())
		}
	}
	if kinds["ConfigMap"] != 10 || kinds["Service"] != 10 || kinds["Deployment"] != 5 || len(c.Metadata.Objects) != 25 {
		t.Fatalf("kinds %v, %d objects described", kinds, len(c.Metadata.Objects))
	}
	if _, err := publish.Build(c); err != nil {
		t.Fatal(err)
	}
}

func TestControllerFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"-only", "kubectl", "-controller", "c"},
		{"-only", "controller"}, // no binary
		{"-only", "controller", "-controller", "c", "-controller-releases", "0"},
		{"-nofsync", "n", "-helm", "h"}, // the full run includes the scenario by default
	} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
	for _, good := range [][]string{
		{"-only", "controller", "-controller", "c"},
		{"-nofsync", "n", "-helm", "h", "-controller-releases", "0", "-stop-objects", "0"},
		{"-nofsync", "n", "-helm", "h", "-controller", "c"},
	} {
		if _, err := parseFlags(good, io.Discard); err != nil {
			t.Errorf("parseFlags(%q): %v", good, err)
		}
	}
}
