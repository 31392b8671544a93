package deploy_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Acceptance 1 on the real node: deploy builds the hello example's web
// image, delivers it into the node's containerd through the granted ctr,
// plans, applies with --approve and runs its http check against the
// running container; a second deploy skips build and delivery.
func TestDeployHelloOnTheRealNodeRunsItsChecks(t *testing.T) {
	rn := sandboxtest.StartRealNode(t)
	node, ok, err := rn.Box.RealNode()
	if err != nil || !ok {
		t.Fatalf("RealNode() = %+v, %t, %v", node, ok, err)
	}
	ctr, err := exec.LookPath("ctr")
	if err != nil {
		sandboxtest.Unavailable(t, "no ctr (Debian package containerd) to deliver with")
	}
	p := helloProject(t, rn.Sandbox, node.Containerd)
	grants := []artifact.Grant{{Tool: artifact.ToolCtr, Path: ctr}}

	start := time.Now()
	_, err = p.run(t, deploy.Options{Grants: grants})
	var approval *deploy.ApprovalRequiredError
	if !errors.As(err, &approval) {
		t.Fatalf("deploy: %v, want approval required", err)
	}
	res, err := p.run(t, deploy.Options{Approve: approval.Plan.Hash, Grants: grants})
	if err != nil {
		t.Fatalf("deploy --approve: %v", err)
	}
	t.Logf("cold deploy (build, delivery, plan, apply, check): %s", time.Since(start).Round(time.Millisecond))
	checks, _ := res.State.Stage(deploy.StageChecks)
	if checks.Status != "done" || checks.Outputs == nil || len(checks.Outputs.Checks) != 1 || !checks.Outputs.Checks[0].Passed {
		t.Fatalf("checks stage %+v, want the home page check passed", checks)
	}
	if d, _ := res.State.Stage(deploy.StageDeliver); d.Status == "done" {
		t.Errorf("the approved deploy delivered again")
	}

	start = time.Now()
	_, err = p.run(t, deploy.Options{Grants: grants})
	if !errors.As(err, &approval) {
		t.Fatalf("second deploy: %v", err)
	}
	warm, err := p.run(t, deploy.Options{Approve: approval.Plan.Hash, Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warm deploy (nothing changed): %s", time.Since(start).Round(time.Millisecond))
	for _, st := range []deploy.Stage{deploy.StageBuild, deploy.StageDeliver} {
		if s := stageStatus(t, warm.State, st); s != "skipped" {
			t.Errorf("second deploy's %s %s, want skipped", st, s)
		}
	}

	// A runtime that lost the image gets it again: the skip asks containerd.
	b, _ := warm.State.Stage(deploy.StageBuild)
	ref := b.Outputs.Images[0].Reference
	if out, err := exec.Command(ctr, "--address", node.Containerd, "-n", "k8s.io", "images", "rm", ref).CombinedOutput(); err != nil {
		t.Fatalf("ctr images rm %s: %v\n%s", ref, err, out)
	}
	res, err = p.run(t, deploy.Options{Grants: grants, Until: deploy.StageDeliver})
	if err != nil {
		t.Fatal(err)
	}
	if d := stageStatus(t, res.State, deploy.StageDeliver); d != "done" {
		t.Errorf("deploy after the image was removed from containerd: deliver %s, want done", d)
	}
}

// helloProject copies the hello example's image sources, pins them, and
// writes a release delivering to the containerd at socket, with the
// example's check.
func helloProject(t *testing.T, sb *sandboxtest.Sandbox, socket string) project {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	example := filepath.Join(filepath.Dir(file), "..", "examples", "hello")
	dir := t.TempDir()
	for _, rel := range []string{"build.toml", "web/go.mod", "web/main.go"} {
		data, err := os.ReadFile(filepath.Join(example, rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	}
	p := project{dir: dir, build: filepath.Join(dir, "build.toml"), spec: filepath.Join(dir, "release.toml")}
	pin(t, p.build)
	src := `[target]
kubeconfig = "` + sb.Kubeconfig + `"
context = "` + sb.Context + `"
namespace = "` + sb.Namespace(t) + `"

[release]
name = "hello"
composition = "` + filepath.Join(example, "infra.go") + `:Build"

[images]
web = { build = "web" }

[deploy]
deliver = "containerd"
containerd_address = "` + socket + `"

[[checks]]
name = "home page"
http = { service = "web", port = 80, path = "/", expect_status = 200, body_contains = "hello from piceli" }
`
	if err := os.WriteFile(p.spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
