package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/release"
)

// diffSpec declares staging and prod over a Go composition whose
// ConfigMap reads the value greeting and whose Deployment takes the image
// web and the value replicas.
const diffSpec = goodTarget + goodRelease + `
[images]
web = "example.com/web@sha256:0000000000000000000000000000000000000000000000000000000000000000"

[values]
greeting = "hello"
replicas = "1"
tier = "same"

[environments.staging]
target = { namespace = "demo-staging" }

[environments.prod]
target = { namespace = "demo-prod" }
values = { greeting = "welcome", replicas = "3" }
images = { web = "example.com/web@sha256:1111111111111111111111111111111111111111111111111111111111111111" }
`

const diffBody = `	n, err := strconv.Atoi(ctx.Value("replicas"))
	if err != nil {
		return nil, err
	}
	a.ConfigMap("settings", app.Data("greeting", ctx.Value("greeting")), app.Data("tier", ctx.Value("tier")), app.Data("env", ctx.Environment))
	a.Deployment("web", app.Image(ctx.Image("web")), app.Replicas(int32(n)), app.Ports(80))
`

// Acceptance 3 of issue 30: render --env staging --diff-env prod -o json
// lists exactly the values, images and object paths prod changes (the
// composition also writes ctx.Environment, the environment it renders),
// and two runs print the same bytes.
func TestRenderDiffEnvListsExactlyTheChangedPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	piceliModule(t, dir, "example.com/demo")
	infra := strings.Replace(buildWith(diffBody), `import "github.com/pynenc/piceli/app"`, "import (\n\t\"strconv\"\n\n\t\"github.com/pynenc/piceli/app\"\n)", 1)
	writeFiles(t, dir, map[string]string{"release.toml": diffSpec, "infra.go": infra})
	args := []string{"render", "--spec", filepath.Join(dir, "release.toml"), "--env", "staging", "--diff-env", "prod", "-o", "json"}
	first, second := run(t, args...), run(t, args...)
	if first.code != ExitOK {
		t.Fatalf("render --diff-env: exit %d\n%s", first.code, first.stderr)
	}
	if first.stdout != second.stdout {
		t.Errorf("two runs differ:\n%s\n---\n%s", first.stdout, second.stdout)
	}
	var d release.EnvDiff
	if err := json.Unmarshal([]byte(first.stdout), &d); err != nil {
		t.Fatalf("decode the env-diff document: %v\n%s", err, first.stdout)
	}
	if d.Schema != "piceli.env-diff/v1" || d.From != "staging" || d.To != "prod" {
		t.Errorf("document header = %s %s %s, want piceli.env-diff/v1 staging prod", d.Schema, d.From, d.To)
	}
	var values, images, objects []string
	for _, v := range d.Values {
		values = append(values, v.Key+"="+v.From+"->"+v.To)
	}
	for _, v := range d.Images {
		images = append(images, v.Key)
	}
	for _, o := range d.Objects {
		objects = append(objects, o.Ref.Kind+"/"+o.Ref.Name+": "+strings.Join(o.Paths, ", "))
	}
	want := map[string][]string{
		"values":  {"greeting=hello->welcome", "replicas=1->3"},
		"images":  {"web"},
		"objects": {"ConfigMap/settings: data.env, data.greeting", "Deployment/web: spec.replicas, spec.template.spec.containers[name=web].image"},
	}
	got := map[string][]string{"values": values, "images": images, "objects": objects}
	for what := range want {
		if !slices.Equal(got[what], want[what]) {
			t.Errorf("%s differing = %q, want exactly %q", what, got[what], want[what])
		}
	}
	text := run(t, args[:len(args)-2]...)
	if text.code != ExitOK || !strings.Contains(text.stdout, "~ ConfigMap/demo-staging/settings: data.env, data.greeting") {
		t.Errorf("render --diff-env as text: exit %d\n%s%s", text.code, text.stdout, text.stderr)
	}
}

func TestRenderDiffEnvRefuses(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"release.toml": envSpec, "manifests/cm.yaml": envConfigMap})
	spec := filepath.Join(dir, "release.toml")
	for name, tt := range map[string]struct {
		args []string
		want string
	}{
		"an unknown environment to compare with": {[]string{"--env", "dev", "--diff-env", "qa"}, `environment "qa" is not declared`},
		"no --env to compare":                    {[]string{"--diff-env", "prod"}, "choose one"},
		"an output directory":                    {[]string{"--env", "dev", "--diff-env", "prod", "--out", filepath.Join(dir, "out")}, "writes no --out directory"},
		"yaml output":                            {[]string{"--env", "dev", "--diff-env", "prod", "-o", "yaml"}, "-o takes json"},
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, append([]string{"render", "--spec", spec}, tt.args...)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 saying %q", res.code, res.stderr, tt.want)
			}
		})
	}
}
