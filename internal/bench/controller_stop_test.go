package bench

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/publish"
)

func TestStopFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"-only", "stop"}, // no binary
		{"-only", "stop", "-controller", "c", "-stop-objects", "0"},
		{"-only", "stop", "-controller", "c", "-stop-objects", "-1"},
		{"-only", "stopp", "-controller", "c"},
		// The full run includes the stop scenario by default, and it
		// needs the binary even when the scale scenario is left out.
		{"-nofsync", "n", "-helm", "h", "-controller-releases", "0"},
	} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
	cfg, err := parseFlags([]string{"-only", "stop", "-controller", "c"}, io.Discard)
	if err != nil || cfg.Only != "stop" || cfg.StopObjects != 4000 {
		t.Errorf("-only stop: %+v, %v; want the stop scenario of 4000 ConfigMaps", cfg, err)
	}
	cfg, err = parseFlags([]string{"-only=stop", "-controller", "c", "-stop-objects", "400", "-controller-releases", "0"}, io.Discard)
	if err != nil || cfg.StopObjects != 400 {
		t.Errorf("-only=stop -stop-objects 400: %+v, %v", cfg, err)
	}
	// -only controller does not need the stop scenario, nor the reverse.
	if _, err := parseFlags([]string{"-only", "controller", "-controller", "c", "-stop-objects", "0"}, io.Discard); err != nil {
		t.Errorf("-only controller -stop-objects 0: %v", err)
	}
	if _, err := parseFlags([]string{"-nofsync", "n", "-helm", "h", "-controller", "c", "-controller-releases", "0"}, io.Discard); err != nil {
		t.Errorf("full run without the scale scenario: %v", err)
	}
}

// The stop scenario's section names each figure, and running it alone
// replaces only its own section, beside the controller's.
func TestStopSectionIsSplicedBesideTheControllerSection(t *testing.T) {
	f := stopFigures{Objects: 4000, Applying: 1500 * time.Millisecond, AtRequest: 2010, AtStop: 2100, Stopped: 800 * time.Millisecond,
		FirstRun: 20 * time.Second, FreshPlan: 14 * time.Second, Ready: 22 * time.Second, Total: 60 * time.Second,
		LoadStart: "3.10 4.00 5.50", LoadEnd: "6.45 4.53 5.58"}
	sec := stopSection(f)
	for _, want := range []string{
		"| from creating the Release until it shows Applying | 1.5 s |",
		"| ConfigMaps that existed when the stop was asked | 2010 of 4000 |",
		"| from the stop request until the Release showed Stalled, reason Stopped | 0.8 s |",
		"| ConfigMaps that existed when it showed Stopped | 2100 of 4000 |",
		"| from approving that plan by hash until the Release was Ready | 22.0 s |",
		"| applying all 4000 ConfigMaps: the stopped run (Applying to Stopped) plus the next run (approval to Ready) | 42.0 s |",
		"| from creating the Release until it was Ready, the stop and the waits included | 60.0 s |",
		"load average (1, 5, 15 minutes): 3.10 4.00 5.50 when the scenario began, 6.45 4.53 5.58 when it ended",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	doc := "# Performance\n\n## Results\n\nold table\n"
	doc = spliceSection(doc, ctlHeading, controllerSection(ctlFigures{Releases: 200, Objects: 25, Pass: 12 * time.Second}))
	doc = spliceSection(doc, stopHeading, sec)
	f.Ready = 99 * time.Second
	got := spliceSection(doc, stopHeading, stopSection(f))
	if strings.Count(got, stopHeading) != 1 || strings.Count(got, ctlHeading) != 1 || !strings.Contains(got, "| 99.0 s |") ||
		strings.Contains(got, "| 22.0 s |") || !strings.Contains(got, "| a no-op pass over all 200 | 12.0 s |") {
		t.Fatalf("replaced the stop section:\n%s", got)
	}
}

// The stop scenario's artifact is n ConfigMaps in its namespace, and
// builds.
func TestStopContentBuilds(t *testing.T) {
	c := stopContent(stopNamespace, 1200)
	if len(c.Manifests) != 1200 || len(c.Metadata.Objects) != 1200 {
		t.Fatalf("%d manifests, %d described", len(c.Manifests), len(c.Metadata.Objects))
	}
	for _, u := range c.Manifests {
		if u.GetKind() != "ConfigMap" || u.GetNamespace() != stopNamespace || !strings.HasPrefix(u.GetName(), "cm-") {
			t.Fatalf("%s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
		}
	}
	if _, err := publish.Build(c); err != nil {
		t.Fatal(err)
	}
}
