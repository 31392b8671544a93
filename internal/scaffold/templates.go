package scaffold

// templates holds the text of each scaffolded file, executed with Options.
var templates = map[string]string{
	"go.mod": `module {{.Module}}

go 1.26

require {{.PiceliModule}} {{.PiceliVersion}}
{{if .PiceliSource}}
// Piceli is reached from a local checkout until it is served by the Go
// module proxy. Remove this line to use a published version.
replace {{.PiceliModule}} => {{.PiceliSource}}
{{end}}`,

	"infra.go": `// Package {{.GoPackage}} describes the {{.Name}} app for Piceli.
package {{.GoPackage}}

import "github.com/pynenc/piceli/app"

// Build declares the app: a web Deployment serving port 80, ready when "/"
// answers, and a Service in front of it.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("{{.Name}}")
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Ports(80),
		app.Ready(app.HTTPGet("/", 80)),
	)
	a.Service(web, app.Port(80))
	return a.Composition(ctx)
}
`,

	"release.toml": `# The release spec: which cluster, which composition, which images.
# Piceli never falls back to ~/.kube/config, $KUBECONFIG or a current-context:
# name a kubeconfig file and a context here (` + "`piceli sandbox up`" + ` prints some).

[target]
kubeconfig = "{{or .Kubeconfig "cluster.kubeconfig"}}"{{if not .Kubeconfig}}  # edit: a kubeconfig file of your cluster{{end}}
context = "{{or .Context "my-cluster"}}"{{if not .Context}}  # edit: a context in that file{{end}}
namespace = "{{.Namespace}}"

[release]
name = "{{.Name}}"
composition = "infra.go:Build"
# The release's state (plans, runs, revisions, the digest key, secret
# versions) lives in the cluster, so every operator and CI runner shares it;
# .piceli-release is only a cache. state = "local" keeps it on this machine.
state = "cluster"
# Who may write that state: each machine or CI runner signs what it writes
# with its own key, and only these keys are trusted. "piceli state key"
# prints a machine's line; this one is the machine that ran piceli init.
state_signers = [
  {{.StateSignerTOML}},
]
state_dir = ".piceli-release"

[images]
# Images are pinned by digest. This one is a placeholder in the right form:
# the sandbox never pulls images; for a real cluster use your image's digest.
web = "docker.io/library/nginx@sha256:{{.NginxDigest}}"
`,

	".gitignore": `.piceli-release/
`,
}
