package render

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNothingOfflineReachesTheCluster keeps imports pointing one way:
// render, the public app package and the composition loader work without
// a cluster, so none of them may depend on a cluster client or on the
// packages that use one.
func TestNothingOfflineReachesTheCluster(t *testing.T) {
	offline := []string{"github.com/pynenc/piceli/internal/render", "github.com/pynenc/piceli/app", "github.com/pynenc/piceli/internal/compose"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, offline...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"k8s.io/client-go/rest", "k8s.io/client-go/dynamic", "k8s.io/client-go/discovery",
		"github.com/pynenc/piceli/internal/kube", "github.com/pynenc/piceli/internal/plan", "github.com/pynenc/piceli/internal/apply",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f {
				t.Errorf("%v depend on %s", offline, dep)
			}
		}
	}
}
