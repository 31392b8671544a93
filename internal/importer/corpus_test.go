package importer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/importgen"
)

// corpusSets are the public, real-world manifest sets of issue 33
// (testdata/roundtrip/SOURCES records their repositories, paths and
// commits).
var corpusSets = []string{"microservices-demo", "guestbook-cassandra", "kube-prometheus", "argo-cd", "ingress-nginx", "kube-state-metrics", "emojivoto", "descheduler"}

// ratioKinds are the kinds acceptance 1 of issue 33 asks builder calls
// for, at least minRatio of each.
var ratioKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "Service", "ConfigMap", "Job", "CronJob"}

const minRatio = 0.9

// TestCorpusBuilderRatio is acceptance 1 of issue 33: on the corpus (at
// least 5 public projects and 150 objects), import writes builder calls
// for at least 90% of the objects of each kind in ratioKinds, and (in
// TestRoundTrip) every object round-trips exactly. It prints the ratio
// per kind (go test -v) and the reasons objects of those kinds fell back.
func TestCorpusBuilderRatio(t *testing.T) {
	type count struct{ builders, all int }
	counts := map[string]*count{}
	objects, projects := 0, map[string]bool{}
	var fallbacks []string
	for _, set := range roundTripSets {
		if !slices.Contains(corpusSets, set.name) {
			continue
		}
		is := importSet(t, set)
		if is.err != nil {
			t.Fatalf("import %s: %v", set.name, is.err)
		}
		objects, projects[set.name] = objects+len(is.input), true
		for i, u := range is.input {
			kind := u.GetKind()
			if counts[kind] == nil {
				counts[kind] = &count{}
			}
			counts[kind].all++
			if is.res.Forms[i] == importgen.Builder {
				counts[kind].builders++
			}
		}
		for _, f := range is.res.Fallbacks {
			if slices.Contains(ratioKinds, strings.Split(f.Object, "/")[0]) {
				fallbacks = append(fallbacks, fmt.Sprintf("%s: %s %s: %s", set.name, f.Object, f.Form, f.Reason))
			}
		}
	}
	if len(projects) < 5 || objects < 150 {
		t.Errorf("corpus: %d objects from %d projects, want at least 150 from 5", objects, len(projects))
	}
	t.Logf("corpus: %d objects from %d projects", objects, len(projects))
	for _, kind := range ratioKinds {
		c := counts[kind]
		if c == nil || c.all == 0 {
			t.Errorf("%s: none in the corpus", kind)
			continue
		}
		ratio := float64(c.builders) / float64(c.all)
		t.Logf("%-12s %3d of %3d builder calls (%.0f%%)", kind, c.builders, c.all, 100*ratio)
		if ratio < minRatio {
			t.Errorf("%s: %d of %d builder calls (%.0f%%), want at least %.0f%%", kind, c.builders, c.all, 100*ratio, 100*minRatio)
		}
	}
	for _, f := range fallbacks {
		t.Logf("fell back: %s", f)
	}
}
