package app

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCompositionErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(a *App, ctx *Context)
		want  []string
	}{
		{
			name: "a component declared twice is reported once by name",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("nginx"))
				a.StatefulSet("web", Image("nginx"))
			},
			want: []string{`component "web" declared twice`},
		},
		{
			name:  "an invalid DNS name names the component and the rule",
			build: func(a *App, ctx *Context) { a.Deployment("Web_1", Image("nginx")) },
			want:  []string{`deployment "Web_1": name must be a DNS-1123 label`},
		},
		{
			name:  "a port out of range names the component and the port",
			build: func(a *App, ctx *Context) { a.Deployment("web", Image("nginx"), Ports(70000)) },
			want:  []string{`deployment "web": port 70000 out of range 1-65535`},
		},
		{
			name:  "an unknown image names the image and release.toml",
			build: func(a *App, ctx *Context) { a.Deployment("web", Image(ctx.Image("nope"))) },
			want:  []string{`image "nope" is not declared in [images] of release.toml`, `deployment "web": image is empty`},
		},
		{
			name:  "an unknown value names the value",
			build: func(a *App, ctx *Context) { a.ConfigMap("c", Data("k", ctx.Value("nope"))) },
			want:  []string{`value "nope" is not declared in [values] of release.toml`},
		},
		{
			name:  "a workload without an image says which option is missing",
			build: func(a *App, ctx *Context) { a.Job("migrate") },
			want:  []string{`job "migrate": image is required (app.Image)`},
		},
		{
			name:  "a missing config file names the path",
			build: func(a *App, ctx *Context) { a.ConfigMap("settings", DataFile("testdata/files/missing.conf")) },
			want:  []string{`configmap "settings": key "missing.conf": read file testdata/files/missing.conf: no such file or directory`},
		},
		{
			name:  "a generated secret with no length names the key",
			build: func(a *App, ctx *Context) { a.Secret("creds", Generated("password", 0)) },
			want:  []string{`secret "creds": key "password": length 0 out of range 1-4096`},
		},
		{
			name:  "a one-character alphabet is refused",
			build: func(a *App, ctx *Context) { a.Secret("creds", Generated("pin", 4).WithAlphabet("0")) },
			want:  []string{`secret "creds": key "pin": alphabet "0" needs at least two distinct characters`},
		},
		{
			name:  "an alphabet on a non-generated source is refused",
			build: func(a *App, ctx *Context) { a.Secret("creds", FromEnv("k", "K").WithAlphabet("ab")) },
			want:  []string{`secret "creds": key "k": an alphabet applies only to a generated value`},
		},
		{
			name: "bad file, env and cluster sources name their keys",
			build: func(a *App, ctx *Context) {
				a.Secret("creds", FromFile("a", ""), FromEnv("b", "1BAD"), FromCluster("c", "Bad_Name", "k"),
					FromCluster("d", "ok", "bad key"), Generated("bad key", 4))
				a.Service(a.Deployment("web", Image("x"), Ports(80)), Port(0))
			},
			want: []string{
				`secret "creds": key "a": file path is empty`,
				`secret "creds": key "b": environment variable "1BAD" is not a valid name`,
				`secret "creds": key "c": cluster secret "Bad_Name": name must be a DNS-1123 subdomain`,
				`secret "creds": key "d": cluster secret "ok": key "bad key" is not a valid key`,
				`secret "creds": key "bad key": valid key`,
				`service "web": port 0 out of range 1-65535`,
			},
		},
		{
			name: "a generated tls pair with a bad common name or host names it",
			build: func(a *App, ctx *Context) {
				a.Secret("tls-a", GeneratedTLS(""))
				a.Secret("tls-b", GeneratedTLS("shop", "bad_host"))
				a.Secret("tls-c", GeneratedTLS("shop.example.com").WithAlphabet("ab"))
			},
			want: []string{
				`secret "tls-a": key "tls.crt": tls common name "" needs 1-64 characters`,
				`secret "tls-b": key "tls.crt": tls host "bad_host": must be an IP address or a DNS-1123 subdomain`,
				`secret "tls-c": key "tls.crt": an alphabet applies only to a generated value`,
			},
		},
		{
			name:  "a generated tls pair next to a key named tls.key is refused",
			build: func(a *App, ctx *Context) { a.Secret("tls", FromEnv("tls.key", "KEY"), GeneratedTLS("shop")) },
			want:  []string{`secret "tls": key "tls.key" declared twice`},
		},
		{
			name:  "a secret without keys is refused",
			build: func(a *App, ctx *Context) { a.Secret("creds") },
			want:  []string{`secret "creds": no keys`},
		},
		{
			name:  "a secret key declared twice is refused",
			build: func(a *App, ctx *Context) { a.Secret("creds", Generated("k", 8), FromEnv("k", "K")) },
			want:  []string{`secret "creds": key "k" declared twice`},
		},
		{
			name: "env from a key the config map lacks names both",
			build: func(a *App, ctx *Context) {
				cm := a.ConfigMap("settings", Data("A", "1"))
				a.Deployment("web", Image("nginx"), EnvFromConfig("B", cm, "B"))
			},
			want: []string{`deployment "web": env "B": configmap "settings" has no key "B"`},
		},
		{
			name: "env from a key the secret lacks names both",
			build: func(a *App, ctx *Context) {
				s := a.Secret("creds", Generated("a", 8))
				a.Deployment("web", Image("nginx"), EnvFromSecret("B", s, "b"))
			},
			want: []string{`deployment "web": env "B": secret "creds" has no key "b"`},
		},
		{
			name: "a service target port the workload does not declare is refused",
			build: func(a *App, ctx *Context) {
				a.Service(a.Deployment("web", Image("nginx"), Ports(80)), PortTo(80, 8080))
			},
			want: []string{`service "web": target port 8080 is not declared by deployment "web"`},
		},
		{
			name:  "a service for a workload without ports is refused",
			build: func(a *App, ctx *Context) { a.Service(a.Deployment("web", Image("nginx"))) },
			want:  []string{`service "web": no ports`},
		},
		{
			name: "a claim template without storage names the template",
			build: func(a *App, ctx *Context) {
				a.StatefulSet("db", Image("postgres"), ClaimTemplate("data", "/data"))
			},
			want: []string{`statefulset "db": claim template "data": storage size is required`},
		},
		{
			name: "a claim template on a deployment is refused",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("nginx"), ClaimTemplate("d", "/d", Storage("1Gi")))
			},
			want: []string{`deployment "web": ClaimTemplate applies only to a StatefulSet`},
		},
		{
			name:  "replicas on a job is refused",
			build: func(a *App, ctx *Context) { a.Job("migrate", Image("x"), Replicas(2)) },
			want:  []string{`job "migrate": Replicas applies only to a Deployment or StatefulSet`},
		},
		{
			name:  "a backoff limit on a deployment is refused",
			build: func(a *App, ctx *Context) { a.Deployment("web", Image("x"), BackoffLimit(2)) },
			want:  []string{`deployment "web": BackoffLimit applies only to a Job or CronJob`},
		},
		{
			name:  "a cronjob needs a schedule",
			build: func(a *App, ctx *Context) { a.CronJob("report", "", Image("x")) },
			want:  []string{`cronjob "report": schedule is required`},
		},
		{
			name: "bad resources, probes, env names and mounts name their fields",
			build: func(a *App, ctx *Context) {
				cm := a.ConfigMap("c", Data("k", "v"))
				a.Deployment("web", Image("x"),
					Requests("lots", ""), Ready(HTTPGet("/", 0)), Live(Probe{}), Env("1X", "v"),
					MountConfig(cm, "relative"), Ports(80, 80), NamedPort("Not_A_Name", 81), Replicas(-1),
					MountConfig(cm, "/etc/c"), MountConfig(cm, "/etc/c"), Env("A", "1"), Env("A", "2"),
					ClaimTemplate("Bad_T", "/t", Storage("1Gi")))
			},
			want: []string{
				`deployment "web": requests cpu "lots"`,
				`deployment "web": readiness probe: port 0 out of range 1-65535`,
				`deployment "web": liveness probe is empty`,
				`deployment "web": env "1X": name must be a valid environment variable name`,
				`deployment "web": mount path "relative" must be absolute`,
				`deployment "web": port 80 declared twice`,
				`deployment "web": port name "Not_A_Name" must be an IANA service name`,
				`deployment "web": replicas -1 must not be negative`,
				`deployment "web": mount path "/etc/c" used twice`,
				`deployment "web": env "A" declared twice`,
				`deployment "web": claim template "Bad_T": name must be a DNS-1123 label`,
			},
		},
		{
			name: "an exec probe without a command is refused",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Ready(Exec()))
			},
			want: []string{`deployment "web": readiness probe: exec probe needs a command`},
		},
		{
			name: "a configmap key declared twice or invalid is refused",
			build: func(a *App, ctx *Context) {
				a.ConfigMap("c", Data("k", "1"), Data("k", "2"), Data("bad key", "3"))
			},
			want: []string{`configmap "c": key "k" declared twice`, `configmap "c": key "bad key": valid key`},
		},
		{
			name: "a network policy port the target does not declare is refused",
			build: func(a *App, ctx *Context) {
				web := a.Deployment("web", Image("x"), Ports(80))
				db := a.Deployment("db", Image("x"), Ports(5432))
				a.AllowTraffic(web, db, 80)
			},
			want: []string{`networkpolicy "allow-web-to-db": port 80 is not declared by deployment "db"`},
		},
		{
			name: "an autoscaler on a job and with bad bounds is refused",
			build: func(a *App, ctx *Context) {
				a.Autoscaler(a.Job("j", Image("x")), 3, 2, CPUUtilization(0))
			},
			want: []string{
				`horizontalpodautoscaler "j": cpu utilization 0 must be at least 1`,
				`horizontalpodautoscaler "j": target job "j" is not a Deployment or StatefulSet`,
				`horizontalpodautoscaler "j": replicas range 3-2 needs 1 <= min <= max`,
			},
		},
		{
			name: "an empty or negative budget is refused",
			build: func(a *App, ctx *Context) {
				a.DisruptionBudget(a.Deployment("web", Image("x")), Budget{})
				api := a.Deployment("api", Image("x"))
				a.DisruptionBudget(api, MinAvailable(-1))
				a.DisruptionBudget(api, MaxUnavailable(1))
				a.DefaultDeny()
				a.DefaultDeny()
				a.Ingress("dup", Route("", "/", a.Service(a.Deployment("svc", Image("x"), Ports(1))), 1))
				a.Ingress("dup", Route("", "/", &Service{name: "svc", ports: []PortInfo{{Port: 1}}}, 1))
			},
			want: []string{
				`poddisruptionbudget "web": budget is empty`, `poddisruptionbudget "api": budget -1 must not be negative`,
				`poddisruptionbudget "api" declared twice`, `networkpolicy "demo-default-deny" declared twice`,
				`ingress "dup" declared twice`,
			},
		},
		{
			name: "an ingress route to a missing port, bad path or bad host is refused",
			build: func(a *App, ctx *Context) {
				svc := a.Service(a.Deployment("web", Image("x"), Ports(80)))
				a.Ingress("public", Route("a.example.com", "/", svc, 81), Route("", "api", svc, 80), Route("Bad Host", "/", svc, 80))
				a.Ingress("empty")
			},
			want: []string{
				`ingress "public": route a.example.com/: service "web" has no port 81`,
				`ingress "public": route path "api" must start with /`,
				`ingress "public": route host "Bad Host" is not a DNS name`,
				`ingress "empty": no routes`,
			},
		},
		{
			name: "a role without permissions or verbs is refused",
			build: func(a *App, ctx *Context) {
				a.Role("empty")
				a.Role("noverbs", Permit("", "pods"))
				r := a.Role("r", Permit("", "pods", "get"))
				a.RoleBinding(r)
				a.RoleBinding(r, a.ServiceAccount("sa"))
			},
			want: []string{`role "empty": no permissions`, `role "noverbs": permission needs a resource and at least one verb`, `rolebinding "r": no service accounts to bind`, `rolebinding "r" declared twice`},
		},
		{
			name: "a claim with a bad size and a duplicate claim are refused",
			build: func(a *App, ctx *Context) {
				a.PersistentVolumeClaim("data", Storage("huge"))
				a.PersistentVolumeClaim("data", Storage("1Gi"))
			},
			want: []string{`persistentvolumeclaim "data": storage "huge"`, `persistentvolumeclaim "data" declared twice`},
		},
		{
			name: "an invalid namespace and service account name are refused",
			build: func(a *App, ctx *Context) {
				a.Namespace("Team A")
				a.ServiceAccount("Bad_SA")
			},
			want: []string{`namespace "Team A": name must be a DNS-1123 label`, `serviceaccount "Bad_SA": name must be a DNS-1123 subdomain`},
		},
		{
			name: "foreign objects without a kind or name, or declared twice, name their origin",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"))
				a.Unstructured(
					mustUnstructured(map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}),
					mustUnstructured(map[string]any{"metadata": map[string]any{"name": "x"}}),
					mustUnstructured(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}),
				)
				a.File("testdata/files/missing.yaml")
				a.Objects(nil, &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "y"}}})
				a.Unstructured(nil)
			},
			want: []string{
				`unstructured ConfigMap/: metadata.name is required`,
				`unstructured /x: apiVersion and kind are required`,
				`unstructured Deployment/web: deployment "web" declared twice`,
				`testdata/files/missing.yaml`,
				`k8s.io/api object is nil`,
				`k8s.io/api *unstructured.Unstructured: *unstructured.Unstructured has no apiVersion and kind`,
				`unstructured object is nil`,
			},
		},
		{
			name:  "nil handles are reported, not panicked on",
			build: func(a *App, ctx *Context) { nilHandles(a) },
			want: []string{
				`service: workload is nil`, `allow traffic: workload is nil`, `allow from anywhere: workload is nil`,
				`autoscaler: workload is nil`, `disruption budget: workload is nil`, `role binding: role is nil`,
				`deployment "web": env "A": config map is nil`, `deployment "web": env "B": secret is nil`,
				`deployment "web": mount "/c": config map is nil`, `deployment "web": mount "/s": secret is nil`,
				`deployment "web": mount "/v": claim is nil`, `ingress "i": route: service is nil`,
			},
		},
		{
			name: "a package's own error joins the builders' errors",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("nginx"), Ports(70000))
				a.Errorf("postgres %q: storage %q is not a quantity", "db", "lots")
			},
			want: []string{`deployment "web": port 70000 out of range 1-65535`, `postgres "db": storage "lots" is not a quantity`},
		},
		{
			name:  "an invalid app name is refused",
			build: func(a *App, ctx *Context) {},
			want:  []string{`app "Bad App": name must be a DNS-1123 label`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "demo"
			if strings.HasPrefix(tt.name, "an invalid app name") {
				name = "Bad App"
			}
			a := New(name)
			ctx := testContext()
			tt.build(a, ctx)
			c, err := a.Composition(ctx)
			if err == nil {
				t.Fatalf("Composition() = %v, want an error", c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Composition() error =\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func mustUnstructured(m map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: m}
}

// nilHandles passes nil handles everywhere one is accepted.
func nilHandles(a *App) {
	a.Service(nil)
	a.AllowTraffic(nil, nil)
	a.AllowFromAnywhere(nil)
	a.Autoscaler(nil, 1, 2)
	a.DisruptionBudget(nil, MinAvailable(1))
	a.RoleBinding(nil)
	a.Deployment("web", Image("x"),
		EnvFromConfig("A", nil, "a"), EnvFromSecret("B", nil, "b"),
		MountConfig(nil, "/c"), MountSecret(nil, "/s"), MountClaim(nil, "/v"),
		RunAs(nil), DependsOn(nil))
	a.Ingress("i", Route("", "/", nil, 80))
}
