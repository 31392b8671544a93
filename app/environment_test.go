package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// envShop declares a small app with an environment per stage: staging
// scales and resizes, prod moves hosts and nodes, dev drops the worker.
func envShop(ctx *Context) (*Composition, error) {
	a := New("shop")
	config := a.ConfigMap("config", Data("LOG_LEVEL", "info"), Data("FEATURES", "basic"))
	db := a.StatefulSet("db", Image(ctx.Image("db")), NamedPort("postgres", 5432))
	a.Service(db, Headless())
	api := a.Deployment("api", Image(ctx.Image("web")), NamedPort("http", 8080), Requests("100m", "128Mi"), DependsOn(db))
	svc := a.Service(api)
	scale := a.Autoscaler(api, 2, 4)
	web := a.Deployment("web", Image(ctx.Image("web")), Replicas(2), NamedPort("http", 8080), DependsOn(api))
	a.Service(web)
	worker := a.Deployment("worker", Image(ctx.Image("web")))
	a.DisruptionBudget(worker, MinAvailable(1))
	a.AllowTraffic(worker, db, 5432)
	a.AllowTraffic(api, db, 5432)
	ing := a.Ingress("shop", Route("shop.example.com", "/", svc, 8080), TLS("shop-tls", "shop.example.com"))

	a.Environment("dev", Drop(worker), SetData(config, "LOG_LEVEL", "debug"))
	a.Environment("staging",
		SetReplicas(web, 1),
		SetScale(scale, 1, 2),
		SetRequests(api, "50m", ""),
		SetLimits(api, "500m", "256Mi"),
	)
	a.Environment("prod",
		SetReplicas(web, 5),
		SetHost(ing, "shop.example.com", "shop.example.org"),
		SetNodeSelector(db, map[string]string{"disk": "ssd"}),
		EditOf(web, func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 10 }),
	)
	return a.Composition(ctx)
}

func envContext(env string) *Context {
	ctx := testContext()
	ctx.Environment, ctx.Environments = env, []string{"dev", "prod", "staging"}
	return ctx
}

// renderEnv renders envShop for env and returns its objects by kind/name.
func renderEnv(t *testing.T, env string) map[string]*unstructured.Unstructured {
	t.Helper()
	c, err := envShop(envContext(env))
	if err != nil {
		t.Fatalf("render %s: %v", env, err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, o := range c.Objects() {
		out[o.Object.GetKind()+"/"+o.Object.GetName()] = o.Object
	}
	return out
}

func field(t *testing.T, objs map[string]*unstructured.Unstructured, key string, path ...string) any {
	t.Helper()
	o, ok := objs[key]
	if !ok {
		t.Fatalf("no %s rendered", key)
	}
	v, _, err := unstructured.NestedFieldNoCopy(o.Object, path...)
	if err != nil {
		t.Fatalf("%s %v: %v", key, path, err)
	}
	return v
}

func TestEnvironmentOverridesChangeOnlyTheirEnvironment(t *testing.T) {
	base, staging, prod, dev := renderEnv(t, ""), renderEnv(t, "staging"), renderEnv(t, "prod"), renderEnv(t, "dev")
	container := []string{"spec", "template", "spec", "containers"}
	firstContainer := func(objs map[string]*unstructured.Unstructured, key string) map[string]any {
		return field(t, objs, key, container...).([]any)[0].(map[string]any)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"web's replicas without an environment", field(t, base, "Deployment/web", "spec", "replicas"), int64(2)},
		{"web's replicas in staging", field(t, staging, "Deployment/web", "spec", "replicas"), int64(1)},
		{"web's replicas in prod", field(t, prod, "Deployment/web", "spec", "replicas"), int64(5)},
		{"the autoscaler's bounds in staging", []any{
			field(t, staging, "HorizontalPodAutoscaler/api", "spec", "minReplicas"),
			field(t, staging, "HorizontalPodAutoscaler/api", "spec", "maxReplicas"),
		}, []any{int64(1), int64(2)}},
		{"the autoscaler's bounds in prod", field(t, prod, "HorizontalPodAutoscaler/api", "spec", "maxReplicas"), int64(4)},
		{"api's resources in staging", firstContainer(staging, "Deployment/api")["resources"], map[string]any{
			"requests": map[string]any{"cpu": "50m", "memory": "128Mi"},
			"limits":   map[string]any{"cpu": "500m", "memory": "256Mi"},
		}},
		{"api's resources in prod", firstContainer(prod, "Deployment/api")["resources"], map[string]any{
			"requests": map[string]any{"cpu": "100m", "memory": "128Mi"},
		}},
		{"the ingress host in prod", field(t, prod, "Ingress/shop", "spec", "rules").([]any)[0].(map[string]any)["host"], "shop.example.org"},
		{"the TLS host in prod", field(t, prod, "Ingress/shop", "spec", "tls").([]any)[0].(map[string]any)["hosts"], []any{"shop.example.org"}},
		{"the ingress host in staging", field(t, staging, "Ingress/shop", "spec", "rules").([]any)[0].(map[string]any)["host"], "shop.example.com"},
		{"db's node selector in prod", field(t, prod, "StatefulSet/db", "spec", "template", "spec", "nodeSelector"), map[string]any{"disk": "ssd"}},
		{"db's node selector in staging", field(t, staging, "StatefulSet/db", "spec", "template", "spec", "nodeSelector"), nil},
		{"EditOf in prod", field(t, prod, "Deployment/web", "spec", "minReadySeconds"), int64(10)},
		{"the config in dev", field(t, dev, "ConfigMap/config", "data", "LOG_LEVEL"), "debug"},
		{"the config in prod", field(t, prod, "ConfigMap/config", "data", "LOG_LEVEL"), "info"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestDropLeavesOutTheWorkloadAndWhatExistsForIt(t *testing.T) {
	staging, dev := renderEnv(t, "staging"), renderEnv(t, "dev")
	for _, key := range []string{"Deployment/worker", "PodDisruptionBudget/worker", "NetworkPolicy/allow-worker-to-db"} {
		if _, ok := staging[key]; !ok {
			t.Errorf("staging lacks %s", key)
		}
		if _, ok := dev[key]; ok {
			t.Errorf("dev still renders %s after Drop(worker)", key)
		}
	}
	if _, ok := dev["NetworkPolicy/allow-api-to-db"]; !ok {
		t.Errorf("dev lost allow-api-to-db, which is not the worker's")
	}
	if len(dev) != len(staging)-3 {
		t.Errorf("dev renders %d objects, want staging's %d less the worker's 3", len(dev), len(staging))
	}
	c, err := envShop(envContext("dev"))
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range c.Components() {
		if info.Name == "worker" {
			t.Errorf("dev still lists the worker component")
		}
	}
}

func TestEnvironmentOverridesThatDoNotFitAreReported(t *testing.T) {
	tests := []struct {
		name  string
		env   func(a *App, w map[string]*Workload, h *Autoscaler, c *ConfigMap, i *Ingress)
		wants []string
	}{
		{
			name:  "an environment release.toml does not declare",
			env:   func(a *App, _ map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) { a.Environment("prdo") },
			wants: []string{`environment "prdo" is not declared in [environments] of release.toml (declared: dev, prod, staging)`},
		},
		{
			name: "replicas of an autoscaled workload",
			env: func(a *App, w map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) {
				a.Environment("prod", SetReplicas(w["api"], 3))
			},
			wants: []string{`environment "prod": SetReplicas of deployment "api": its replicas belong to its autoscaler; use SetScale`},
		},
		{
			name: "a ConfigMap key that is not declared",
			env: func(a *App, _ map[string]*Workload, _ *Autoscaler, c *ConfigMap, _ *Ingress) {
				a.Environment("prod", SetData(c, "LOG_LEVL", "debug"))
			},
			wants: []string{`environment "prod": SetData("LOG_LEVL") of configmap "config": key "LOG_LEVL" is not declared (declared: LOG_LEVEL)`},
		},
		{
			name: "a host the Ingress does not route",
			env: func(a *App, _ map[string]*Workload, _ *Autoscaler, _ *ConfigMap, i *Ingress) {
				a.Environment("prod", SetHost(i, "shop.example.net", "x.example.org"))
			},
			wants: []string{`no route for host "shop.example.net"`},
		},
		{
			name: "dropping a workload another depends on",
			env: func(a *App, w map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) {
				a.Environment("prod", Drop(w["db"]))
			},
			wants: []string{`environment "prod": Drop of statefulset "db": component api depends on it`},
		},
		{
			name: "bounds out of order",
			env: func(a *App, _ map[string]*Workload, h *Autoscaler, _ *ConfigMap, _ *Ingress) {
				a.Environment("prod", SetScale(h, 3, 2))
			},
			wants: []string{`replicas range 3-2 needs 1 <= min <= max`},
		},
		{
			name: "an EditOf of the wrong type",
			env: func(a *App, w map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) {
				a.Environment("prod", EditOf(w["db"], func(*appsv1.Deployment) {}))
			},
			wants: []string{`EditOf takes *v1.Deployment, but the object is a *v1.StatefulSet`},
		},
		{
			name: "a nil handle",
			env: func(a *App, _ map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) {
				var none *Workload
				a.Environment("prod", SetReplicas(none, 1))
			},
			wants: []string{`environment "prod": SetReplicas: the handle is nil`},
		},
		{
			name: "an environment declared twice",
			env: func(a *App, _ map[string]*Workload, _ *Autoscaler, _ *ConfigMap, _ *Ingress) {
				a.Environment("prod")
				a.Environment("prod")
			},
			wants: []string{`environment "prod" declared twice`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := envContext("prod")
			a := New("shop")
			config := a.ConfigMap("config", Data("LOG_LEVEL", "info"))
			db := a.StatefulSet("db", Image(ctx.Image("db")), NamedPort("postgres", 5432))
			api := a.Deployment("api", Image(ctx.Image("web")), NamedPort("http", 8080), DependsOn(db))
			svc := a.Service(api)
			h := a.Autoscaler(api, 1, 3)
			ing := a.Ingress("shop", Route("shop.example.com", "/", svc, 8080))
			tt.env(a, map[string]*Workload{"db": db, "api": api}, h, config, ing)
			_, err := a.Composition(ctx)
			if err == nil {
				t.Fatal("Composition succeeded, want an error")
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nlacks %q", err, want)
				}
			}
		})
	}
}

func TestAnEnvironmentOfAnotherNameChangesNothing(t *testing.T) {
	ctx := envContext("staging")
	a := New("shop")
	web := a.Deployment("web", Image(ctx.Image("web")), Replicas(2))
	a.Environment("prod", SetReplicas(web, 9), SetData(&ConfigMap{name: "missing"}, "k", "v"))
	c, err := a.Composition(ctx)
	if err != nil {
		t.Fatalf("overrides of prod failed a staging render: %v", err)
	}
	if got, _, _ := unstructured.NestedInt64(c.Objects()[0].Object.Object, "spec", "replicas"); got != 2 {
		t.Errorf("staging replicas = %d, want the declared 2", got)
	}
}

// TestAnOverrideOfAnUndeclaredComponentDoesNotCompile type-checks a
// composition whose environment names a handle that does not exist: the
// mistake must stop the build, not be ignored at render time.
func TestAnOverrideOfAnUndeclaredComponentDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program")
	}
	dir := t.TempDir()
	src := `package typo

import "github.com/pynenc/piceli/app"

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("shop")
	api := a.Deployment("api", app.Image(ctx.Image("api")))
	a.Environment("prod", app.SetReplicas(apii, 3))
	_ = api
	return a.Composition(ctx)
}
`
	// The package must sit inside the module to import app; a testdata
	// folder keeps it out of ./... .
	pkg := filepath.Join("testdata", "envtypo-"+filepath.Base(dir))
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(pkg) })
	if err := os.WriteFile(filepath.Join(pkg, "typo.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "vet", "./"+pkg).CombinedOutput()
	if err == nil {
		t.Fatalf("a composition overriding an undeclared handle compiled:\n%s", out)
	}
	if !strings.Contains(string(out), "undefined: apii") {
		t.Errorf("the build failed for another reason, want undefined: apii:\n%s", out)
	}
}

// A spec without [environments] renders no environment: the overrides are
// neither applied nor checked against names it does not have.
func TestASpecWithoutEnvironmentsRendersNone(t *testing.T) {
	c, err := envShop(testContext())
	if err != nil {
		t.Fatalf("a spec without environments: %v", err)
	}
	for _, o := range c.Objects() {
		if o.Object.GetKind() == "Deployment" && o.Object.GetName() == "web" {
			if got, _, _ := unstructured.NestedInt64(o.Object.Object, "spec", "replicas"); got != 2 {
				t.Errorf("web replicas = %d, want the declared 2", got)
			}
			return
		}
	}
	t.Fatal("no web Deployment rendered")
}
