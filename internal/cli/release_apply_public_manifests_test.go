package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Public multi-tier manifests (testdata/manifests, their sources named
// there), applied as they are through a YAML composition, become ready on
// the sandbox: their claims bound, their LoadBalancer Services at
// 127.0.0.1; a diff afterwards finds nothing to change.
func TestApplyPublicManifests(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	tests := []struct {
		dir           string
		minObjects    int
		loadBalancers []string
		claims        []string
	}{
		{dir: "microservices-demo", minObjects: 30, loadBalancers: []string{"frontend-external"}},
		{dir: "wordpress", minObjects: 7, loadBalancers: []string{"wordpress"}, claims: []string{"mysql-pv-claim", "wp-pv-claim"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := manifestsRelease(t, sb, filepath.Join(repoRoot(t), "testdata", "manifests", tt.dir))
			p := r.plan(t)
			if n := p.Counts()[plan.Create]; n < tt.minObjects {
				t.Fatalf("plan of %s creates %d objects, want at least %d", tt.dir, n, tt.minObjects)
			}
			start := time.Now()
			r.apply(t, p)
			t.Logf("apply of %s (%d objects) took %s", tt.dir, len(p.Steps), time.Since(start).Round(100*time.Millisecond))
			r.assertFinished(t, p)
			r.assertAllCurrent(t, p)
			for _, name := range tt.loadBalancers {
				assertLoopbackIngress(t, r, p, name)
			}
			for _, name := range tt.claims {
				assertClaimBound(t, sb, r.ns, name)
			}
			r.diffExitCode(t)
		})
	}
}

// manifestsRelease writes a release whose composition is the directory dir,
// targeting a fresh namespace.
func manifestsRelease(t *testing.T, sb *sandboxtest.Sandbox, dir string) *testRelease {
	t.Helper()
	spec := t.TempDir()
	r := &testRelease{sb: sb, ns: sb.Namespace(t), name: "demo", spec: filepath.Join(spec, "release.toml"), stateDir: filepath.Join(spec, ".piceli-release")}
	writeFiles(t, spec, map[string]string{"release.toml": fmt.Sprintf(
		"[target]\nkubeconfig = %s\ncontext = %s\nnamespace = %s\n\n[release]\nname = \"demo\"\ncomposition = %s\n",
		quote(sb.Kubeconfig), quote(sb.Context), quote(r.ns), quote(dir))})
	return r
}

// assertLoopbackIngress checks that the Service name of p has exactly the
// ingress address 127.0.0.1.
func assertLoopbackIngress(t *testing.T, r *testRelease, p *plan.Plan, name string) {
	t.Helper()
	i := slices.IndexFunc(p.Steps, func(s plan.Step) bool { return s.Ref.Kind == "Service" && s.Ref.Name == name })
	if i < 0 {
		t.Fatalf("the plan declares no Service %s", name)
	}
	live, err := r.get(t, p.Steps[i])
	if err != nil {
		t.Fatal(err)
	}
	if ips := loadBalancerIngress(live); !slices.Equal(ips, []string{sandbox.LoopbackIP}) {
		t.Errorf("Service/%s/%s ingress %v; want [%s]", r.ns, name, ips, sandbox.LoopbackIP)
	}
}
