package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Bad input to deploy is refused with exit 2 before anything is written:
// the state directory is not even created.
func TestDeployRefusesBadInputBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	writeFiles(t, dir, map[string]string{
		"kubeconfig": "apiVersion: v1\nkind: Config\n",
		"release.toml": `[target]
kubeconfig = "kubeconfig"
context = "c"
namespace = "n"

[release]
name = "app"
composition = "manifests/"

[deploy]
deliver = "containerd"
`,
		"manifests/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"bad.toml":          "[target]\nkubeconfig = \"kubeconfig\"\ncontext = \"c\"\nnamespace = \"n\"\n[release]\nname = \"app\"\ncomposition = \"manifests/\"\n[telemetry]\notlp_endpont = \"http://127.0.0.1:4318\"\n",
	})
	_ = kubeconfig
	spec := filepath.Join(dir, "release.toml")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown stage", []string{"deploy", "--spec", spec, "--until", "ship"}, `--until: unknown stage "ship"`},
		{"nothing to resume", []string{"deploy", "--spec", spec, "--resume", "--grant", "ctr=/bin/true"}, "nothing to resume: the release has no deploy yet"},
		{"a bad endpoint", []string{"deploy", "--spec", spec, "--otlp-endpoint", "udp://127.0.0.1:1"}, "the OTLP endpoint:"},
		{"an unknown key of the spec", []string{"deploy", "--spec", filepath.Join(dir, "bad.toml")}, "bad.toml:9: telemetry.otlp_endpont: unknown key"},
		{"a grant that the delivery does not use", []string{"deploy", "--spec", spec, "--grant", "ctr=/bin/true", "--grant", "ssh=/bin/true"}, "grant of ssh: this deploy's delivery"},
		{"a missing grant", []string{"deploy", "--spec", spec}, "runs ctr, which is not granted"},
		{"a registry delivery without its registry", []string{"deploy", "--spec", spec, "--deliver", "registry"}, "delivery to a registry needs its address, HOST:PORT"},
		{"an address without its delivery", []string{"deploy", "--spec", spec, "--containerd-address", "/run/c.sock"}, "a containerd address or registry goes with a delivery target"},
		{"an unknown deploy to show", []string{"deploy", "show", "d2026", "--spec", spec}, `no deploy "d2026"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.args...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("piceli %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), res.code, res.stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".piceli-release")); err == nil {
				t.Errorf("piceli %s wrote the state directory", strings.Join(tt.args, " "))
			}
		})
	}
}

// The deploy command stops for approval with exit 3 and prints the exact
// command that continues; that command applies without building again,
// and history and show tell what each deploy did.
func TestDeployCommandAsksApprovalThenContinues(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r, build := servicesRelease(t, sb)
	mustRun(t, "artifacts", "pin", "--spec", build)
	res := run(t, "deploy", "--spec", r.spec)
	if res.code != ExitApproval {
		t.Fatalf("deploy: exit %d, stderr %s; want 3", res.code, res.stderr)
	}
	next := regexp.MustCompile(`continue with: (piceli deploy .* --approve [0-9a-f]{12})`).FindStringSubmatch(res.stdout)
	if next == nil {
		t.Fatalf("deploy printed no command to continue:\n%s", res.stdout)
	}
	for _, want := range []string{"stage build: done", "stage deliver: skipped ([deploy] deliver = \"none\"", "stage plan: done"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("deploy's progress lacks %q:\n%s", want, res.stderr)
		}
	}
	args := strings.Fields(next[1])[1:]
	res = mustRun(t, args...)
	if !strings.Contains(res.stderr, "stage build: skipped (inputs unchanged") || !strings.Contains(res.stderr, "finished") {
		t.Errorf("deploy --approve did not skip the build or did not finish:\n%s", res.stderr)
	}
	hist := mustRun(t, "deploy", "history", "--spec", r.spec)
	id := strings.Fields(hist.stdout)[0]
	if !strings.Contains(hist.stdout, "finished") || !strings.Contains(hist.stdout, "apply done") {
		t.Errorf("deploy history:\n%s", hist.stdout)
	}
	show := mustRun(t, "deploy", "show", id, "--spec", r.spec)
	for _, want := range []string{"build", "image catalog piceli.local/services/catalog@sha256:", "run ", "revision 1"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("deploy show lacks %q:\n%s", want, show.stdout)
		}
	}
}
