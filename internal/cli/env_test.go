package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryReleaseSpecCommandTakesEnv: --env is on every command that
// reads a release spec (the artifacts commands read build.toml), with one
// help text.
func TestEveryReleaseSpecCommandTakesEnv(t *testing.T) {
	for path, c := range runnable(NewRoot()) {
		spec := c.Flags().Lookup("spec")
		if spec == nil || spec.DefValue != "release.toml" {
			continue
		}
		env := c.Flags().Lookup("env")
		if env == nil || env.Usage != usageEnv {
			t.Errorf("%s reads a release spec and has no --env with help %q", path, usageEnv)
		}
	}
}

// envSpec declares dev and prod over a manifests composition; its
// kubeconfig names no reachable server, so a command that got past the
// spec would fail otherwise than with a refusal.
const envSpec = goodTarget + `[release]
name = "demo"
composition = "manifests/"

[environments.dev]
target = { namespace = "demo-dev" }

[environments.prod]
target = { namespace = "demo-prod" }
`

const envConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"

func TestEnvIsRequiredAndChecked(t *testing.T) {
	tests := []struct {
		name string
		spec string
		args []string
		want []string // in stderr
	}{
		{"a spec with environments needs one", envSpec, []string{"render"},
			[]string{"release.toml:", "environments: the spec declares environments dev, prod: choose one", "pass --env NAME, one of dev, prod"}},
		{"an unknown environment is refused listing the declared ones", envSpec, []string{"render", "--env", "qa"},
			[]string{`environment "qa" is not declared; the environments are dev, prod`}},
		{"an unknown environment is refused before planning reaches a cluster", envSpec, []string{"release", "plan", "--env", "../prod"},
			[]string{`environment "../prod" is not declared`}},
		{"an environment for a spec without any is refused", goodTarget + "[release]\nname = \"demo\"\ncomposition = \"manifests/\"\n", []string{"render", "--env", "prod"},
			[]string{`environment "prod": the spec declares no [environments]`, "drop --env"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"release.toml": tt.spec, "manifests/cm.yaml": envConfigMap})
			res := run(t, append(tt.args, "--spec", filepath.Join(dir, "release.toml"))...)
			if res.code != ExitRefused {
				t.Fatalf("exit = %d, want %d (refused); stderr:\n%s", res.code, ExitRefused, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, res.stderr)
				}
			}
			if res.stdout != "" {
				t.Errorf("a refused command printed:\n%s", res.stdout)
			}
		})
	}
}

func TestRenderEnvRendersThatEnvironment(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"release.toml": envSpec, "manifests/cm.yaml": envConfigMap})
	for env, ns := range map[string]string{"dev": "demo-dev", "prod": "demo-prod"} {
		res := run(t, "render", "--spec", filepath.Join(dir, "release.toml"), "--env", env)
		if res.code != 0 {
			t.Fatalf("render --env %s exit = %d; stderr:\n%s", env, res.code, res.stderr)
		}
		if !strings.Contains(res.stdout, "namespace: "+ns+"\n") {
			t.Errorf("render --env %s does not put the ConfigMap in %s:\n%s", env, ns, res.stdout)
		}
	}
}
