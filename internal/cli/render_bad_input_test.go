package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

const goodTarget = `[target]
kubeconfig = "cluster.kubeconfig"
context = "test"
namespace = "demo"
`

const goodRelease = `[release]
name = "demo"
composition = "infra.go:Build"
`

const pinned = `[images]
web = "example.com/web@sha256:0000000000000000000000000000000000000000000000000000000000000000"
`

// buildWith is a Go composition whose Build body is body.
func buildWith(body string) string {
	return "package demo\n\nimport \"github.com/pynenc/piceli/app\"\n\nfunc Build(ctx *app.Context) (*app.Composition, error) {\n\ta := app.New(\"demo\")\n" + body + "\treturn a.Composition(ctx)\n}\n"
}

func TestRenderRefusesBadInput(t *testing.T) {
	t.Parallel()
	web := "\ta.Deployment(\"web\", app.Image(ctx.Image(\"web\")), app.Ports(80))\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // every fragment must be in the error
	}{
		{
			name:  "an unknown key names the file, line and key",
			files: map[string]string{"release.toml": goodTarget + "colour = \"blue\"\n" + goodRelease + pinned},
			want:  []string{"release.toml:5", "target.colour"},
		},
		{
			name:  "a missing target context names the key",
			files: map[string]string{"release.toml": "[target]\nkubeconfig = \"k\"\nnamespace = \"demo\"\n" + goodRelease + pinned},
			want:  []string{"release.toml", "target.context"},
		},
		{
			name:  "an omitted kubeconfig is refused",
			files: map[string]string{"release.toml": "[target]\ncontext = \"c\"\nnamespace = \"demo\"\n" + goodRelease + pinned},
			want:  []string{"release.toml", "target.kubeconfig"},
		},
		{
			name:  "the default ~/.kube/config is refused",
			files: map[string]string{"release.toml": "[target]\nkubeconfig = \"~/.kube/config\"\ncontext = \"c\"\nnamespace = \"demo\"\n" + goodRelease + pinned},
			want:  []string{"release.toml:2", "target.kubeconfig"},
		},
		{
			name:  "an image without a digest is refused",
			files: map[string]string{"release.toml": goodTarget + goodRelease + "[images]\nweb = \"nginx:latest\"\n"},
			want:  []string{"release.toml:9", "images.web", "sha256"},
		},
		{
			name:  "malformed YAML names the file and line",
			files: map[string]string{"release.toml": goodTarget + "[release]\nname = \"demo\"\ncomposition = \"manifests/\"\n", "manifests/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: [oops\n"},
			want:  []string{"a.yaml:", "invalid YAML"},
		},
		{
			name:  "a missing composition file is named",
			files: map[string]string{"release.toml": goodTarget + "[release]\nname = \"demo\"\ncomposition = \"nowhere.yaml\"\n"},
			want:  []string{"nowhere.yaml"},
		},
		{
			name:  "duplicate component names name the component",
			files: map[string]string{"release.toml": goodTarget + goodRelease + pinned, "infra.go": buildWith(web + web)},
			want:  []string{`"web"`, "twice"},
		},
		{
			name:  "an invalid DNS name names the component",
			files: map[string]string{"release.toml": goodTarget + goodRelease + pinned, "infra.go": buildWith("\ta.Deployment(\"Web_1\", app.Image(ctx.Image(\"web\")))\n")},
			want:  []string{`"Web_1"`, "DNS-1123"},
		},
		{
			name:  "a port out of range names the component and port",
			files: map[string]string{"release.toml": goodTarget + goodRelease + pinned, "infra.go": buildWith("\ta.Deployment(\"web\", app.Image(ctx.Image(\"web\")), app.Ports(70000))\n")},
			want:  []string{`"web"`, "70000"},
		},
		{
			name:  "a composition that does not compile shows the compiler's message",
			files: map[string]string{"release.toml": goodTarget + goodRelease + pinned, "infra.go": buildWith("\tundefinedThing()\n")},
			want:  []string{"infra.go:7", "undefined: undefinedThing"},
		},
		{
			name:  "a Build function with the wrong signature names the expected one",
			files: map[string]string{"release.toml": goodTarget + goodRelease + pinned, "infra.go": "package demo\n\nfunc Build() error { return nil }\n"},
			want:  []string{"infra.go:3", "func Build(ctx *app.Context) (*app.Composition, error)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := tt.files["infra.go"]; ok {
				piceliModule(t, dir, "example.com/demo")
			}
			writeFiles(t, dir, tt.files)
			res := run(t, "render", "--spec", filepath.Join(dir, "release.toml"))
			if res.code != ExitRefused {
				t.Fatalf("render exit = %d, want %d (refused); stderr:\n%s", res.code, ExitRefused, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr does not name %q:\n%s", w, res.stderr)
				}
			}
			if res.stdout != "" {
				t.Errorf("refused render printed manifests:\n%s", res.stdout)
			}
		})
	}
}
