package app

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testContext is the Context golden tests build with.
func testContext() *Context {
	return NewContext(ContextDocument{
		Schema:    ContextSchema,
		Release:   "demo",
		Namespace: "demo-ns",
		Images: map[string]string{
			"web": "docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000001",
			"db":  "docker.io/library/postgres@sha256:0000000000000000000000000000000000000000000000000000000000000002",
		},
		Values: map[string]string{"level": "debug"},
	})
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		build  func(a *App, ctx *Context)
	}{
		{
			name:   "the quick start declares a deployment and its service",
			golden: "quickstart",
			build: func(a *App, ctx *Context) {
				web := a.Deployment("web", Image(ctx.Image("web")), Ports(80), Ready(HTTPGet("/", 80)))
				a.Service(web, Port(80))
			},
		},
		{
			name:   "a deployment takes every container option",
			golden: "deployment_options",
			build:  deploymentWithEverything,
		},
		{
			name:   "a statefulset mounts its claim template and has a headless service",
			golden: "statefulset",
			build: func(a *App, ctx *Context) {
				db := a.StatefulSet("db",
					Image(ctx.Image("db")),
					Replicas(1),
					NamedPort("postgres", 5432),
					ClaimTemplate("data", "/var/lib/postgresql/data", Storage("1Gi"), StorageClass("fast")),
					Ready(Exec("pg_isready")),
					Live(TCP(5432)),
				)
				a.Service(db, Headless())
			},
		},
		{
			name:   "jobs and cronjobs run to completion with a backoff limit",
			golden: "jobs",
			build: func(a *App, ctx *Context) {
				a.Job("migrate", Image(ctx.Image("db")), Command("migrate"), Args("up"), BackoffLimit(3))
				a.CronJob("report", "0 3 * * *", Image(ctx.Image("db")), Command("report"), BackoffLimit(1))
			},
		},
		{
			name:   "services default to declared ports and take port mappings and types",
			golden: "services",
			build: func(a *App, ctx *Context) {
				web := a.Deployment("web", Image(ctx.Image("web")), NamedPort("http", 8080), Ports(9090), UDPPort(53))
				a.Service(web, PortTo(80, 8080), Port(9090), ServiceType(corev1.ServiceTypeNodePort),
					Annotation("example.com/lb", "internal"))
				dns := a.Deployment("dns", Image(ctx.Image("web")), UDPPort(53), NamedPort("metrics", 9153))
				a.Service(dns)
			},
		},
		{
			name:   "a configmap holds literals, text files and binary files",
			golden: "configmap",
			build: func(a *App, ctx *Context) {
				a.ConfigMap("settings",
					Data("LEVEL", ctx.Value("level")),
					DataFile("testdata/files/app.conf"),
					DataFileAs("custom.ini", "testdata/files/settings.ini"),
					DataFile("testdata/files/blob.bin"),
					Annotation("example.com/owner", "team-a"),
				)
			},
		},
		{
			name:   "a secret is declared by every kind of source and carries no data",
			golden: "secret",
			build: func(a *App, ctx *Context) {
				a.Secret("creds",
					Generated("password", 24),
					Generated("pin", 6).WithAlphabet("0123456789"),
					FromFile("tls.crt", "certs/tls.crt"),
					FromEnv("api-key", "API_KEY"),
					FromCluster("token", "other-app", "token"),
					DependsOn(a.ConfigMap("before", Data("k", "v"))),
				)
			},
		},
		{
			name:   "a generated tls pair declares tls.crt and tls.key with its hosts",
			golden: "secret_tls",
			build: func(a *App, ctx *Context) {
				a.Secret("shop-tls", GeneratedTLS("shop.example.com", "shop.example.com", "*.shop.example.com", "10.0.0.1"))
				a.Secret("api-tls", GeneratedTLS("api.example.com"))
			},
		},
		{
			name:   "network policies deny by default and allow traffic between components",
			golden: "network",
			build: func(a *App, ctx *Context) {
				web := a.Deployment("web", Image(ctx.Image("web")), Ports(80))
				db := a.StatefulSet("db", Image(ctx.Image("db")), Ports(5432))
				a.DefaultDeny()
				a.AllowFromAnywhere(web, 80)
				a.AllowTraffic(web, db, 5432)
				a.AllowTraffic(db, web)
			},
		},
		{
			name:   "a role is bound to a service account in the target namespace",
			golden: "rbac",
			build: func(a *App, ctx *Context) {
				sa := a.ServiceAccount("api")
				role := a.Role("reader", Permit("", "configmaps", "get", "list"), Permit("apps", "deployments", "get"))
				a.RoleBinding(role, sa)
				a.Deployment("api", Image(ctx.Image("web")), RunAs(sa))
			},
		},
		{
			name:   "a persistent volume claim is mounted by a deployment",
			golden: "claim",
			build: func(a *App, ctx *Context) {
				uploads := a.PersistentVolumeClaim("uploads",
					Storage("10Gi"), AccessModes(corev1.ReadWriteMany), StorageClass("nfs"),
					Annotation("example.com/backup", "daily"))
				a.Deployment("web", Image(ctx.Image("web")),
					MountClaim(uploads, "/uploads"), MountClaim(uploads, "/also-uploads"))
			},
		},
		{
			name:   "autoscalers take over replicas and budgets select the pods",
			golden: "scaling",
			build: func(a *App, ctx *Context) {
				api := a.Deployment("api", Image(ctx.Image("web")), Replicas(3), Requests("100m", "64Mi"))
				a.Autoscaler(api, 2, 8, CPUUtilization(60), MemoryUtilization(75))
				db := a.StatefulSet("db", Image(ctx.Image("db")))
				a.Autoscaler(db, 1, 3, DependsOn(api))
				a.DisruptionBudget(api, MinAvailable(1))
				a.DisruptionBudget(db, MaxUnavailable(1))
			},
		},
		{
			name:   "an ingress groups routes by host and terminates tls",
			golden: "ingress",
			build: func(a *App, ctx *Context) {
				web := a.Service(a.Deployment("web", Image(ctx.Image("web")), Ports(80)))
				api := a.Service(a.Deployment("api", Image(ctx.Image("web")), Ports(8080)))
				a.Ingress("public",
					IngressClass("nginx"),
					Route("shop.example.com", "/", web, 80),
					Route("shop.example.com", "/api", api, 8080),
					Route("", "/", web, 80),
					TLS("shop-tls", "shop.example.com"),
					DependsOn(web),
				)
			},
		},
		{
			name:   "a namespace is cluster scoped",
			golden: "namespace",
			build:  func(a *App, ctx *Context) { a.Namespace("team-a") },
		},
		{
			name:   "typed, unstructured and file objects keep their own labels and origins",
			golden: "foreign",
			build:  foreignObjects,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New("demo")
			ctx := testContext()
			tt.build(a, ctx)
			c, err := a.Composition(ctx)
			if err != nil {
				t.Fatalf("Composition() error = %v", err)
			}
			checkGolden(t, tt.golden, c)
		})
	}
}

// deploymentWithEverything uses every workload option on one Deployment.
func deploymentWithEverything(a *App, ctx *Context) {
	cm := a.ConfigMap("settings", Data("LEVEL", "info"))
	sec := a.Secret("creds", Generated("password", 16))
	claim := a.PersistentVolumeClaim("cache", Storage("1Gi"))
	sa := a.ServiceAccount("web")
	db := a.StatefulSet("db", Image(ctx.Image("db")))
	a.Deployment("web",
		Image(ctx.Image("web")),
		Command("nginx"),
		Args("-g", "daemon off;"),
		Ports(80, 443),
		NamedPort("metrics", 9113),
		UDPPort(5353),
		Env("MODE", "production"),
		EnvFromConfig("LEVEL", cm, "LEVEL"),
		EnvFromSecret("PASSWORD", sec, "password"),
		Requests("100m", "128Mi"),
		Limits("500m", ""),
		Replicas(3),
		Ready(HTTPGet("/ready", 80).After(5).Every(3)),
		Live(TCP(80)),
		MountConfig(cm, "/etc/settings"),
		MountSecret(sec, "/etc/creds"),
		MountClaim(claim, "/cache"),
		RunAs(sa),
		DependsOn(db, cm),
		Annotation("example.com/team", "web"),
	)
}

// foreignObjects adds one object of every non-builder source.
func foreignObjects(a *App, ctx *Context) {
	replicas := int32(2)
	a.Objects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "typed"}, Data: map[string]string{"k": "v"}},
		&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "legacy"},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "legacy"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "legacy"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "legacy", Image: ctx.Image("web")}}},
				},
			},
		},
	)
	a.Unstructured(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "gadget"}, "spec": map[string]any{"size": int64(3)},
	}})
	a.File("testdata/files/objects.yaml")
}

// checkGolden compares the composition's Document, as YAML, with
// testdata/<name>.yaml, rewriting it with -update.
func checkGolden(t *testing.T, name string, c *Composition) {
	t.Helper()
	got, err := yaml.Marshal(c.Document())
	if err != nil {
		t.Fatalf("yaml.Marshal(Document) error = %v", err)
	}
	path := filepath.Join("testdata", name+".yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Document of %s differs from %s (-want +got):\n%s", name, path, diff)
	}
}
