package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// twoEnvironments are the commands that read a release spec for two of
// its environments, named by other flags than --env, with those flags.
var twoEnvironments = map[string][2]string{
	"promote": {"from", "to"},
}

// TestEveryReleaseSpecCommandTakesEnv: --env is on every command that
// reads a release spec (the artifacts commands read build.toml), with one
// help text; a command of two environments takes its two flags instead.
func TestEveryReleaseSpecCommandTakesEnv(t *testing.T) {
	for path, c := range runnable(NewRoot()) {
		spec := c.Flags().Lookup("spec")
		if spec == nil || spec.DefValue != "release.toml" {
			continue
		}
		if flags, ok := twoEnvironments[path]; ok {
			for _, name := range flags {
				if c.Flags().Lookup(name) == nil {
					t.Errorf("%s reads a release spec for two environments and has no --%s", path, name)
				}
			}
			if c.Flags().Lookup("env") != nil {
				t.Errorf("%s names its environments with --%s and --%s, and also takes --env", path, flags[0], flags[1])
			}
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

// overrideBody declares web with typed overrides for staging and prod, and
// one for the environment named by ENV (a typo when it is not declared).
const overrideBody = `	web := a.Deployment("web", app.Image(ctx.Image("web")), app.Replicas(2), app.Ports(80))
	a.Environment("prod", app.SetReplicas(web, 5))
	a.Environment("ENV", app.SetReplicas(web, 1))
`

// Acceptance 2 of issue 30 (Go): a typed override of prod changes prod's
// render only, and an environment release.toml does not declare is
// refused with exit 2, naming the declared ones, before any cluster is
// contacted (the spec's kubeconfig names no reachable server).
func TestTypedOverridesRenderPerEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	piceliModule(t, dir, "example.com/demo")
	spec := filepath.Join(dir, "release.toml")
	writeFiles(t, dir, map[string]string{"release.toml": diffSpec, "infra.go": buildWith(strings.ReplaceAll(overrideBody, "ENV", "staging"))})
	for env, want := range map[string]string{"staging": "replicas: 1\n", "prod": "replicas: 5\n"} {
		res := run(t, "render", "--spec", spec, "--env", env)
		if res.code != ExitOK {
			t.Fatalf("render --env %s: exit %d\n%s", env, res.code, res.stderr)
		}
		if !strings.Contains(res.stdout, want) {
			t.Errorf("render --env %s lacks %q:\n%s", env, want, res.stdout)
		}
	}

	writeFiles(t, dir, map[string]string{"infra.go": buildWith(strings.ReplaceAll(overrideBody, "ENV", "stagign"))})
	for _, args := range [][]string{{"render"}, {"release", "plan"}} {
		res := run(t, append(args, "--spec", spec, "--env", "prod")...)
		if res.code != ExitRefused {
			t.Fatalf("%v with an undeclared environment in Go: exit %d, want %d\n%s", args, res.code, ExitRefused, res.stderr)
		}
		if want := `environment "stagign" is not declared in [environments] of release.toml (declared: prod, staging)`; !strings.Contains(res.stderr, want) {
			t.Errorf("%v: stderr lacks %q:\n%s", args, want, res.stderr)
		}
	}
}
