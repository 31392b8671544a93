package render

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// helmEngine is the one package allowed to bring a cluster client into the
// composition loader: Helm's template engine links client-go for its
// lookup function, and internal/compose/chart runs it with no client
// configured, so lookup answers nothing
// (TestRenderGivesTheReleaseAndCapabilitiesAndNoLookup).
const helmEngine = "helm.sh/helm/v4/pkg/engine"

// TestNothingOfflineReachesTheCluster keeps imports pointing one way:
// render, the public app package and the composition loader work without
// a cluster, so none of them may depend on a cluster client or on the
// packages that use one, except the cluster client Helm's engine links
// (helmEngine), which is never configured.
func TestNothingOfflineReachesTheCluster(t *testing.T) {
	offline := []string{"github.com/pynenc/piceli/internal/render", "github.com/pynenc/piceli/app", "github.com/pynenc/piceli/internal/compose"}
	forbidden := []string{
		"k8s.io/client-go/rest", "k8s.io/client-go/dynamic", "k8s.io/client-go/discovery",
		"github.com/pynenc/piceli/internal/kube", "github.com/pynenc/piceli/internal/plan", "github.com/pynenc/piceli/internal/apply",
	}
	for _, pkg := range offline {
		for _, f := range forbidden {
			for _, importer := range importersOf(t, pkg, f) {
				if importer != helmEngine {
					t.Errorf("%s depends on %s, through %s", pkg, f, importer)
				}
			}
		}
	}
	if len(importersOf(t, "github.com/pynenc/piceli/app", helmEngine)) > 0 {
		t.Errorf("the app package links Helm's engine: a user's composition would carry a cluster client")
	}
}

// importersOf lists the packages among pkg's dependencies that import dep
// directly and are not themselves part of client-go.
func importersOf(t *testing.T, pkg, dep string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var importers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 && !strings.HasPrefix(fields[0], "k8s.io/client-go/") && slices.Contains(fields[1:], dep) {
			importers = append(importers, fields[0])
		}
	}
	return importers
}
