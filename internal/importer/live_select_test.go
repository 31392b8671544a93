package importer_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/refusal"
)

// TestImportLiveChoosesWhatToRead: --select reads only the kinds it names
// and imports only the objects it names; --all-kinds reads every kind but
// still leaves out what the cluster made itself; a selection of nothing
// there is refused.
func TestImportLiveChoosesWhatToRead(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := importNamespace(t, sb)
	kubectlApply(t, sb, ns, liveApp)
	waitForPods(t, sb, ns)
	live := func(t *testing.T, target importer.Target) (*importer.Result, *listCounter, error) {
		lists := &listCounter{}
		target.Kubeconfig, target.Context, target.Namespace, target.WrapTransport = sb.Kubeconfig, sb.Context, ns, lists.wrap
		res, err := importer.FromCluster(t.Context(), target, importer.Options{Out: filepath.Join(t.TempDir(), "module"), PiceliSource: piceliSource(t), CacheDir: filepath.Join(sharedDir(t), "cache")})
		return res, lists, err
	}
	t.Run("select", func(t *testing.T) {
		res, lists, err := live(t, importer.Target{Select: []string{"deploy/web", "configmaps/web-config", "Service/web"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := renderedNames(t, res), []string{"ConfigMap/web-config", "Deployment/web", "Service/web"}; !slices.Equal(got, want) {
			t.Errorf("imported %v, want %v", got, want)
		}
		if len(lists.paths) != 3 {
			t.Errorf("listed %v, want the 3 selected kinds", lists.paths)
		}
	})
	t.Run("all kinds", func(t *testing.T) {
		res, lists, err := live(t, importer.Target{AllKinds: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := renderedNames(t, res); !slices.Equal(got, liveObjects) {
			t.Errorf("imported %v, want %v", got, liveObjects)
		}
		if !slices.ContainsFunc(slices.Collect(maps.Keys(lists.paths)), func(p string) bool { return strings.HasSuffix(p, "/controllerrevisions") }) {
			t.Errorf("--all-kinds did not list controllerrevisions: %v", lists.paths)
		}
	})
	t.Run("a selection of nothing there", func(t *testing.T) {
		for _, sel := range []string{"deployment/nowhere", "gizmo/web", "web"} {
			_, _, err := live(t, importer.Target{Select: []string{sel}})
			if !refusal.Is(err) || !strings.Contains(strings.ToLower(err.Error()), sel) {
				t.Errorf("--select %s: error %v, want a refusal naming it", sel, err)
			}
		}
	})
}

// renderedNames renders the module and returns its objects as Kind/name,
// sorted.
func renderedNames(t *testing.T, res *importer.Result) []string {
	t.Helper()
	var out []string
	for _, u := range renderModule(t, res.Spec) {
		out = append(out, u.GetKind()+"/"+u.GetName())
	}
	slices.Sort(out)
	return out
}
