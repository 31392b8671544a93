package importer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/internal/importgen"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// clusterCorpusSet is the corpus app acceptance 3 of issue 33 applies:
// GoogleCloudPlatform/microservices-demo, whose objects name no
// namespace, so it can go to a fresh one.
const clusterCorpusSet = "microservices-demo"

// TestImportedCorpusAppAppliesAndAdoptsItsYAML is acceptance 3 of issue
// 33: the module import yaml writes for a corpus app (builder calls for
// its workloads and Services) applies on the sandbox in a fresh namespace
// and then plans no change; and against the same app applied from its
// YAML with kubectl, it plans adoptions only: nothing created, changed,
// blocked or in conflict.
func TestImportedCorpusAppAppliesAndAdoptsItsYAML(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	set := corpusSet(t, clusterCorpusSet)
	is := importSet(t, set)
	if is.err != nil {
		t.Fatalf("import %s: %v", set.name, is.err)
	}
	for i, f := range is.res.Forms {
		if kind := is.input[i].GetKind(); (kind == "Deployment" || kind == "Service") && f != importgen.Builder {
			t.Fatalf("%s/%s is a %s, want a builder call", kind, is.input[i].GetName(), f)
		}
	}
	t.Run("applies in a fresh namespace", func(t *testing.T) {
		r := openImported(t, sb, is.res, sb.Namespace(t), "fresh")
		p := planOf(t, r)
		if n := p.Counts()[plan.Create]; n != len(is.input) {
			t.Fatalf("the first plan creates %d objects, want the %d imported", n, len(is.input))
		}
		if _, err := r.Apply(sandboxtest.Context(t, 5*time.Minute), p.Hash, release.RunOptions{}); err != nil {
			t.Fatalf("apply the imported module: %v", err)
		}
		for _, s := range planOf(t, r).Steps {
			if s.Action != plan.NoOp {
				t.Errorf("%s: action %s after the apply, want no-op", s.Ref, s.Action)
			}
		}
	})
	t.Run("adopts the app applied from its YAML", func(t *testing.T) {
		ns := sb.Namespace(t)
		kubectlApply(t, sb, ns, set.paths(t)[0])
		r := openImported(t, sb, is.res, ns, "adopt")
		p := planOf(t, r)
		if len(p.Steps) != len(is.input) {
			t.Errorf("the plan has %d steps, want the %d imported objects", len(p.Steps), len(is.input))
		}
		for _, s := range p.Steps {
			if s.Action != plan.Adopt || s.Blocked != "" || len(s.Conflicts) > 0 {
				t.Errorf("%s: action %s, blocked %q, conflicts %v; want adopt, nothing blocked", s.Ref, s.Action, s.Blocked, s.Conflicts)
			}
		}
	})
}

// corpusSet returns the round-trip set named name.
func corpusSet(t *testing.T, name string) manifestSet {
	t.Helper()
	for _, s := range roundTripSets {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no manifest set %q", name)
	return manifestSet{}
}

// targetLine matches the lines of [target] a test rewrites, and the state
// directory.
var targetLine = regexp.MustCompile(`(?m)^(kubeconfig|context|namespace|state_dir) = .*$`)

// openImported opens the imported module as a release targeting the
// sandbox's namespace ns, with a spec and state directory of its own
// (named after which) beside the module's.
func openImported(t *testing.T, sb *sandboxtest.Sandbox, res *importer.Result, ns, which string) *release.Release {
	t.Helper()
	data, err := os.ReadFile(res.Spec)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"kubeconfig": sb.Kubeconfig, "context": sb.Context, "namespace": ns, "state_dir": ".piceli-release-" + which}
	seen := map[string]bool{}
	spec := targetLine.ReplaceAllStringFunc(string(data), func(line string) string {
		key := targetLine.FindStringSubmatch(line)[1]
		seen[key] = true
		return fmt.Sprintf("%s = %q", key, values[key])
	})
	if len(seen) != len(values) {
		t.Fatalf("%s lacks one of %v:\n%s", res.Spec, values, data)
	}
	path := filepath.Join(res.Dir, "release-"+which+".toml")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := release.Open(path, release.Options{CacheDir: filepath.Join(sharedDir(t), "cache")})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return r
}

// planOf plans r, failing the test on an error.
func planOf(t *testing.T, r *release.Release) *plan.Plan {
	t.Helper()
	p, err := r.Plan(sandboxtest.Context(t, 3*time.Minute), release.PlanOptions{})
	if err != nil {
		t.Fatalf("plan the imported module: %v", err)
	}
	return p
}
