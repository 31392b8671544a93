package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/spec"
)

// manifestSet is one input of the round trip: files to import, and the
// app name and target namespace import must choose for them.
type manifestSet struct {
	name, app, namespace string
	paths                func(t *testing.T) []string
}

// roundTripSets are the sets of acceptance 1: the shop example's rendered
// output, a composition using every builder, CRDs with custom resources,
// and three public real-world sets (see testdata/roundtrip/README.md).
var roundTripSets = []manifestSet{
	{name: "shop", app: "shop", namespace: "shop", paths: renderedShop},
	{name: "builders", app: "demo", namespace: "demo", paths: renderedBuilders},
	{name: "crds", app: "crds", namespace: "monitoring", paths: testdata("crds")},
	{name: "microservices-demo", app: "microservices-demo", namespace: "microservices-demo", paths: testdata("microservices-demo")},
	{name: "guestbook-cassandra", app: "guestbook-cassandra", namespace: "guestbook-cassandra", paths: testdata("guestbook-cassandra")},
	{name: "argo-cd", app: "argo-cd", namespace: "argo-cd", paths: testdata("argo-cd")},
	{name: "ingress-nginx", app: "ingress-nginx", namespace: "ingress-nginx", paths: testdata("ingress-nginx")},
	{name: "kube-state-metrics", app: "kube-state-metrics", namespace: "kube-system", paths: testdata("kube-state-metrics")},
	{name: "emojivoto", app: "emojivoto", namespace: "emojivoto", paths: testdata("emojivoto")},
	{name: "descheduler", app: "descheduler", namespace: "kube-system", paths: testdata("descheduler")},
	{name: "zeros", app: "zeros", namespace: "zeros", paths: testdata("zeros")},
	{name: "kube-prometheus", app: "kube-prometheus", namespace: "monitoring", paths: testdata("kube-prometheus")},
}

func testdata(dir string) func(*testing.T) []string {
	return func(*testing.T) []string { return []string{filepath.Join("testdata", "roundtrip", dir)} }
}

// piceliSource is this checkout, which generated modules reach.
func piceliSource(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// importedSet is one set imported once for all the tests that look at it.
type importedSet struct {
	input []*unstructured.Unstructured // the set as read, independently of import
	res   *importer.Result
	err   error
}

var (
	importsMu sync.Mutex
	imports   = map[string]*importedSet{}
	cacheDir  string
)

// importSet imports set into a fresh directory, once per test binary.
func importSet(t *testing.T, set manifestSet) *importedSet {
	t.Helper()
	importsMu.Lock()
	defer importsMu.Unlock()
	if got, ok := imports[set.name]; ok {
		return got
	}
	paths := set.paths(t)
	is := &importedSet{input: readInput(t, paths)}
	out := filepath.Join(sharedDir(t), set.name)
	is.res, is.err = importer.FromFiles(t.Context(), paths, importer.Options{Out: out, PiceliSource: piceliSource(t), CacheDir: filepath.Join(sharedDir(t), "cache")})
	imports[set.name] = is
	return is
}

// sharedDir is a directory the imports of this test binary share.
func sharedDir(t *testing.T) string {
	if cacheDir == "" {
		dir, err := os.MkdirTemp("", "piceli-import-test-*")
		if err != nil {
			t.Fatal(err)
		}
		cacheDir = dir
	}
	return cacheDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cacheDir != "" {
		os.RemoveAll(cacheDir)
	}
	os.Exit(code)
}

// readInput reads the files of a set with the manifest reader, not with
// import's own.
func readInput(t *testing.T, paths []string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, p := range paths {
		docs, _, err := manifest.Read(p) // a file or a directory
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		for _, d := range docs {
			out = append(out, d.Object)
		}
	}
	return out
}

// renderedShop renders examples/shop's prod as piceli render does and returns
// the file holding its output. The images the shop takes from its build
// get stand-in digests, so the input does not change with every build.
func renderedShop(t *testing.T) []string {
	t.Helper()
	s, err := spec.LoadEnv(filepath.Join("..", "..", "examples", "shop", "release.toml"), "prod")
	if err != nil {
		t.Fatal(err)
	}
	for k := range s.Builds {
		s.Images[k] = "piceli.local/shop/" + k + "@sha256:" + strings.Repeat("0", 64)
	}
	res, err := compose.Load(t.Context(), s, compose.Options{CacheDir: filepath.Join(sharedDir(t), "cache")})
	if err != nil {
		t.Fatalf("compose examples/shop: %v", err)
	}
	objs, err := render.Objects(res.Objects, render.Options{Namespace: s.Target.Namespace, Release: s.Release.Name})
	if err != nil {
		t.Fatalf("render examples/shop: %v", err)
	}
	var out []*unstructured.Unstructured
	for _, m := range render.Manifests(objs) {
		out = append(out, render.Redacted(m))
	}
	return []string{writeManifests(t, "shop.yaml", out)}
}

// renderedBuilders renders a composition that uses every builder and
// returns the file holding its output.
func renderedBuilders(t *testing.T) []string {
	t.Helper()
	ctx := app.NewContext(app.ContextDocument{Schema: app.ContextSchema, Release: "demo", Namespace: "demo", Images: map[string]string{
		"web": "docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000001",
		"db":  "docker.io/library/postgres:16",
	}})
	c, err := everyBuilder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.Objects(c.Objects(), render.Options{Namespace: "demo", Release: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, m := range render.Manifests(objs) {
		out = append(out, render.Redacted(m))
	}
	return []string{writeManifests(t, "builders.yaml", out)}
}

// everyBuilder declares one object with every builder, most options used.
func everyBuilder(ctx *app.Context) (*app.Composition, error) {
	a := app.New("demo")
	a.Namespace("demo-extra")
	settings := a.ConfigMap("settings", app.Data("LEVEL", "info"), app.Data("nginx.conf", "server {\n}\n"), app.Annotation("example.com/owner", "team-a"))
	creds := a.Secret("creds", app.Generated("password", 16), app.FromEnv("token", "TOKEN"))
	tls := a.Secret("site-tls", app.GeneratedTLS("demo.example.com"))
	cache := a.PersistentVolumeClaim("cache", app.Storage("1Gi"), app.AccessModes(corev1.ReadWriteMany), app.StorageClass("fast"))
	sa := a.ServiceAccount("web")
	role := a.Role("reader", app.Permit("", "configmaps", "get", "list"), app.Permit("apps", "deployments", "get"))
	a.RoleBinding(role, sa)
	db := a.StatefulSet("db", app.Image(ctx.Image("db")), app.Replicas(1), app.NamedPort("postgres", 5432),
		app.ClaimTemplate("data", "/var/lib/data", app.Storage("5Gi"), app.StorageClass("fast")),
		app.Ready(app.Exec("pg_isready")), app.Live(app.TCP(5432).After(30).Every(5)))
	a.Service(db, app.Headless())
	web := a.Deployment("web", app.Image(ctx.Image("web")), app.Command("nginx"), app.Args("-g", "daemon off;"),
		app.Ports(80, 443), app.NamedPort("metrics", 9113), app.UDPPort(5353),
		app.Env("MODE", "production"), app.EnvFromConfig("LEVEL", settings, "LEVEL"), app.EnvFromSecret("PASSWORD", creds, "password"),
		app.Requests("100m", "128Mi"), app.Limits("500m", ""), app.Ready(app.HTTPGet("/ready", 80).After(5).Every(3)),
		app.MountConfig(settings, "/etc/settings"), app.MountSecret(tls, "/etc/tls"), app.MountClaim(cache, "/cache"),
		app.RunAs(sa), app.Annotation("example.com/team", "web"))
	svc := a.Service(web, app.PortTo(8080, 80), app.Port(443), app.ServiceType(corev1.ServiceTypeNodePort))
	a.Autoscaler(web, 2, 5, app.CPUUtilization(60), app.MemoryUtilization(75))
	a.DisruptionBudget(web, app.MaxUnavailable(1))
	a.Ingress("site", app.IngressClass("nginx"), app.Route("demo.example.com", "/", svc, 8080),
		app.Route("demo.example.com", "/secure", svc, 443), app.Route("", "/", svc, 8080), app.TLS("site-tls", "demo.example.com"))
	a.DaemonSet("agent", app.Image(ctx.Image("web")), app.Ports(9100),
		app.Tolerations(corev1.Toleration{Operator: corev1.TolerationOpExists}),
		app.Sidecar("logs", app.Image(ctx.Image("web")), app.Args("tail")))
	a.Job("migrate", app.Image(ctx.Image("db")), app.Command("migrate"), app.BackoffLimit(3))
	a.CronJob("report", "0 3 * * *", app.Image(ctx.Image("db")), app.Command("report"))
	a.DefaultDeny()
	a.AllowFromAnywhere(web, 80, 443)
	a.AllowTraffic(web, db, 5432)
	a.AllowTraffic(db, web)
	return a.Composition(ctx)
}

// writeManifests writes objects as one YAML stream in the shared
// directory.
func writeManifests(t *testing.T, name string, objs []*unstructured.Unstructured) string {
	t.Helper()
	var data []byte
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, "---\n"...), b...)
	}
	p := filepath.Join(sharedDir(t), "inputs", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
