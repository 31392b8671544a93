package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// servicesRelease copies the services example's sources, build.toml and
// release.toml into a fresh directory targeting a fresh namespace, with
// its composition read from the checkout.
func servicesRelease(t *testing.T, sb *sandboxtest.Sandbox) (*testRelease, string) {
	t.Helper()
	example := filepath.Join(repoRoot(t), "examples", "services")
	dir := t.TempDir()
	build := artifacttest.Services(t, dir)
	data, err := os.ReadFile(filepath.Join(example, "release.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r := &testRelease{sb: sb, ns: sb.Namespace(t), name: "services", spec: filepath.Join(dir, "release.toml"), stateDir: filepath.Join(dir, ".piceli-release")}
	s := string(data)
	for re, repl := range map[string]string{
		`(?m)^kubeconfig = .*$`:  "kubeconfig = " + quote(sb.Kubeconfig),
		`(?m)^context = .*$`:     "context = " + quote(sb.Context),
		`(?m)^namespace = .*$`:   "namespace = " + quote(r.ns),
		`(?m)^composition = .*$`: "composition = " + quote(filepath.Join(example, "infra.go")+":Build"),
	} {
		s = regexp.MustCompile(re).ReplaceAllLiteralString(s, repl)
	}
	writeFiles(t, dir, map[string]string{"release.toml": s})
	return r, build
}

func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	res := run(t, args...)
	if res.code != ExitOK {
		t.Fatalf("piceli %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	return res
}

// Acceptance 7: the release takes its three service images by digest from
// the build; after one service's source changes and is pinned and built
// again, the plan updates that Deployment only: the other services and the
// stateful cache are no-ops. A plan against a layout older than its lock is
// refused.
func TestChangingOneServiceRollsOnlyItsDeployment(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r, build := servicesRelease(t, sb)
	mustRun(t, "artifacts", "pin", "--spec", build)
	mustRun(t, "artifacts", "build", "--spec", build)
	first := r.plan(t)
	r.apply(t, first)
	images := deploymentImages(first)
	if len(images) != 3 {
		t.Fatalf("first plan's Deployments use images %v, want three", images)
	}
	for name, img := range images {
		if !strings.HasPrefix(img, "piceli.local/services/"+name+"@sha256:") {
			t.Errorf("Deployment %s uses image %s, want the build's digest reference", name, img)
		}
	}
	if again := r.plan(t); again.Counts()[plan.NoOp] != len(again.Steps) {
		t.Fatalf("a re-plan without changes is not a no-op: %v", again.Counts())
	}

	edit := filepath.Join(filepath.Dir(build), "cmd", "orders", "main.go")
	data, _ := os.ReadFile(edit)
	os.WriteFile(edit, []byte(strings.Replace(string(data), `"orders service"`, `"orders service v2"`, 1)), 0o644)
	mustRun(t, "artifacts", "pin", "--spec", build)
	res := run(t, "release", "plan", "--spec", r.spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "was built from another lock") {
		t.Errorf("plan before the rebuild: exit %d, stderr %s; want exit 2 asking for a build", res.code, res.stderr)
	}
	mustRun(t, "artifacts", "build", "--spec", build)
	second := r.plan(t)
	for _, s := range second.Steps {
		want := plan.NoOp
		if s.Ref.Kind == "Deployment" && s.Ref.Name == "orders" {
			want = plan.Update
		}
		if s.Action != want {
			t.Errorf("after changing orders: %s plans %s, want %s", s.Ref, s.Action, want)
		}
	}
	if img := deploymentImages(second)["orders"]; img == images["orders"] {
		t.Errorf("Deployment orders still uses %s", img)
	}
}

// deploymentImages maps each Deployment of p to its first container's image.
func deploymentImages(p *plan.Plan) map[string]string {
	out := map[string]string{}
	for _, s := range p.Steps {
		if s.Ref.Kind != "Deployment" || s.Manifest == nil {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(s.Manifest, "spec", "template", "spec", "containers")
		if len(containers) > 0 {
			out[s.Ref.Name], _ = containers[0].(map[string]any)["image"].(string)
		}
	}
	return out
}
