package postgres_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"example.com/piceli-components/postgres"
	"github.com/pynenc/piceli/app"
)

var update = flag.Bool("update", false, "rewrite testdata/*.yaml")

const image = "registry.example/postgres@sha256:0000000000000000000000000000000000000000000000000000000000000000"

// compose declares one database on a fresh App and returns the
// composition's document, or the error Composition returned.
func compose(t *testing.T, name string, opts ...postgres.Option) (app.Document, *postgres.Database, error) {
	t.Helper()
	a := app.New("shop")
	db := postgres.Add(a, name, opts...)
	c, err := a.Composition(nil)
	if err != nil {
		return app.Document{}, db, err
	}
	return c.Document(), db, nil
}

// mustCompose is compose for options that must be valid.
func mustCompose(t *testing.T, name string, opts ...postgres.Option) (app.Document, *postgres.Database) {
	t.Helper()
	doc, db, err := compose(t, name, opts...)
	if err != nil {
		t.Fatalf("Composition() error = %v", err)
	}
	return doc, db
}

// manifest returns the declared object of kind and name.
func manifest(t *testing.T, doc app.Document, kind, name string) map[string]any {
	t.Helper()
	for _, o := range doc.Objects {
		if o.Object.GetKind() == kind && o.Object.GetName() == name {
			return o.Object.Object
		}
	}
	t.Fatalf("no %s %q among the declared objects", kind, name)
	return nil
}

// field returns the value at a dotted path of m; a number indexes a list.
func field(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var v any = m
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				t.Fatalf("%s: no element %s", path, k)
			}
			v = x[i]
		default:
			t.Fatalf("%s: %s is not inside a map or list", path, k)
		}
	}
	return v
}

// env returns the value of the main container's environment variable.
func env(t *testing.T, set map[string]any, name string) any {
	t.Helper()
	for _, e := range field(t, set, "spec.template.spec.containers.0.env").([]any) {
		if m := e.(map[string]any); m["name"] == name {
			if v, ok := m["value"]; ok {
				return v
			}
			return m["valueFrom"]
		}
	}
	t.Fatalf("no env %s", name)
	return nil
}

// TestAddDeclaresTheGoldenObjects pins every object a database with only
// the required option declares: testdata/defaults.yaml (-update rewrites it).
func TestAddDeclaresTheGoldenObjects(t *testing.T) {
	doc, _ := mustCompose(t, "db", postgres.Image(image))
	got, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "defaults.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (go test -update writes it): %v", path, err)
	}
	if string(want) != string(got) {
		t.Errorf("the objects differ from %s; got:\n%s", path, got)
	}
}

// TestEachDefault checks, one by one, what an option left out becomes.
func TestEachDefault(t *testing.T) {
	doc, db := mustCompose(t, "orders-db", postgres.Image(image))
	set := manifest(t, doc, "StatefulSet", "orders-db")
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"storage", field(t, set, "spec.volumeClaimTemplates.0.spec.resources.requests.storage"), postgres.DefaultStorage},
		{"storage class (the cluster's default)", field(t, set, "spec.volumeClaimTemplates.0.spec.storageClassName"), nil},
		{"cpu request", field(t, set, "spec.template.spec.containers.0.resources.requests.cpu"), postgres.DefaultCPURequest},
		{"memory request", field(t, set, "spec.template.spec.containers.0.resources.requests.memory"), postgres.DefaultMemoryRequest},
		{"memory limit", field(t, set, "spec.template.spec.containers.0.resources.limits.memory"), postgres.DefaultMemoryLimit},
		{"no cpu limit", field(t, set, "spec.template.spec.containers.0.resources.limits.cpu"), nil},
		{"user", env(t, set, "POSTGRES_USER"), postgres.DefaultUser},
		{"database, from the name", env(t, set, "POSTGRES_DB"), "orders_db"},
		{"handle's database", db.DatabaseName, "orders_db"},
		{"handle's user", db.User, postgres.DefaultUser},
		{"PGDATA below the mount", env(t, set, "PGDATA"), postgres.DataPath + "/pgdata"},
		{"replicas (one primary)", field(t, set, "spec.replicas"), nil},
		{"port", field(t, set, "spec.template.spec.containers.0.ports.0.containerPort"), int64(postgres.Port)},
		{"password length", doc.Secrets[0].Keys[0].Length, postgres.DefaultPasswordLength},
	}
	for _, tt := range tests {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestDefaultMemoryLimitFollowsALargerRequest: a request above
// DefaultMemoryLimit without MemoryLimit gets a limit equal to it.
func TestDefaultMemoryLimitFollowsALargerRequest(t *testing.T) {
	doc, _ := mustCompose(t, "db", postgres.Image(image), postgres.Requests("1", "1Gi"))
	set := manifest(t, doc, "StatefulSet", "db")
	if got := field(t, set, "spec.template.spec.containers.0.resources.limits.memory"); got != "1Gi" {
		t.Errorf("memory limit = %v, want 1Gi", got)
	}
}

// TestEachOptionOverridesItsDefault checks every option reaches its field.
func TestEachOptionOverridesItsDefault(t *testing.T) {
	doc, db := mustCompose(t, "db", postgres.Image(image),
		postgres.Storage("20Gi"), postgres.StorageClass("fast"),
		postgres.Requests("500m", "1Gi"), postgres.MemoryLimit("2Gi"),
		postgres.DatabaseName("orders"), postgres.User("orders_app"), postgres.PasswordLength(48))
	set := manifest(t, doc, "StatefulSet", "db")
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"image", field(t, set, "spec.template.spec.containers.0.image"), image},
		{"storage", field(t, set, "spec.volumeClaimTemplates.0.spec.resources.requests.storage"), "20Gi"},
		{"storage class", field(t, set, "spec.volumeClaimTemplates.0.spec.storageClassName"), "fast"},
		{"cpu request", field(t, set, "spec.template.spec.containers.0.resources.requests.cpu"), "500m"},
		{"memory request", field(t, set, "spec.template.spec.containers.0.resources.requests.memory"), "1Gi"},
		{"memory limit", field(t, set, "spec.template.spec.containers.0.resources.limits.memory"), "2Gi"},
		{"database", env(t, set, "POSTGRES_DB"), "orders"},
		{"user", env(t, set, "POSTGRES_USER"), "orders_app"},
		{"handle's database", db.DatabaseName, "orders"},
		{"password length", doc.Secrets[0].Keys[0].Length, 48},
	}
	for _, tt := range tests {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestEachBadOptionIsReportedByComposition checks that every bad option
// makes the consumer's Composition fail with one message naming the
// component and the option, and no other message of the component.
func TestEachBadOptionIsReportedByComposition(t *testing.T) {
	tests := []struct {
		name string
		opts []postgres.Option
		want string
	}{
		{"no image", nil, `postgres "db": postgres.Image is required`},
		{"empty image", []postgres.Option{postgres.Image("")}, `postgres "db": postgres.Image is required`},
		{"storage not a quantity", []postgres.Option{postgres.Image(image), postgres.Storage("lots")}, `postgres "db": postgres.Storage "lots": not a quantity`},
		{"storage zero", []postgres.Option{postgres.Image(image), postgres.Storage("0")}, `postgres "db": postgres.Storage "0": must be above zero`},
		{"cpu request", []postgres.Option{postgres.Image(image), postgres.Requests("fast", "1Gi")}, `postgres "db": postgres.Requests cpu "fast": not a quantity`},
		{"memory request", []postgres.Option{postgres.Image(image), postgres.Requests("1", "-1Gi")}, `postgres "db": postgres.Requests memory "-1Gi": must be above zero`},
		{"memory limit", []postgres.Option{postgres.Image(image), postgres.MemoryLimit("")}, `postgres "db": postgres.MemoryLimit "": not a quantity`},
		{"memory limit below request", []postgres.Option{postgres.Image(image), postgres.Requests("1", "1Gi"), postgres.MemoryLimit("512Mi")}, `postgres "db": postgres.MemoryLimit "512Mi" is below the memory request "1Gi"`},
		{"database", []postgres.Option{postgres.Image(image), postgres.DatabaseName("Orders; DROP")}, `postgres "db": postgres.DatabaseName "Orders; DROP": want a lower-case PostgreSQL identifier`},
		{"user", []postgres.Option{postgres.Image(image), postgres.User(strings.Repeat("u", 64))}, `postgres "db": postgres.User "` + strings.Repeat("u", 64) + `": want a lower-case`},
		{"password length", []postgres.Option{postgres.Image(image), postgres.PasswordLength(8)}, `postgres "db": postgres.PasswordLength 8: want at least 16`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, db, err := compose(t, "db", tt.opts...)
			if err == nil {
				t.Fatal("Composition() succeeded, want an error")
			}
			msgs := strings.Split(err.Error(), "\n")
			if len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
				t.Errorf("Composition() error =\n%v\nwant exactly one message containing %q", err, tt.want)
			}
			if db == nil || db.Workload == nil || db.Service == nil || db.Secret == nil {
				t.Errorf("Add returned %+v, want usable handles even when an option is bad", db)
			}
		})
	}
}

// TestConsumerWiresTheHandles declares the component the way a consumer
// does and checks the objects that connect the two.
func TestConsumerWiresTheHandles(t *testing.T) {
	a := app.New("shop")
	db := postgres.Add(a, "db", postgres.Image(image))
	api := a.Deployment("api", app.Image("registry.example/api:1"), app.Ports(8080),
		app.Env("DATABASE_HOST", db.Host()),
		app.EnvFromSecret("DATABASE_PASSWORD", db.Secret, postgres.PasswordKey),
		app.DependsOn(db.Workload))
	a.DefaultDeny()
	a.AllowTraffic(api, db.Workload, db.Port)
	c, err := a.Composition(nil)
	if err != nil {
		t.Fatalf("Composition() error = %v", err)
	}
	doc := c.Document()
	deploy := manifest(t, doc, "Deployment", "api")
	if got := env(t, deploy, "DATABASE_HOST"); got != "db" {
		t.Errorf("DATABASE_HOST = %v, want db", got)
	}
	ref := fmt.Sprint(env(t, deploy, "DATABASE_PASSWORD"))
	if !strings.Contains(ref, "db-credentials") || !strings.Contains(ref, postgres.PasswordKey) {
		t.Errorf("DATABASE_PASSWORD comes from %s, want db-credentials/%s", ref, postgres.PasswordKey)
	}
	var deps []string
	for _, o := range doc.Objects {
		if o.Origin == "component api" && o.Object.GetKind() == "Deployment" {
			deps = o.DependsOn
		}
	}
	if !slices.Contains(deps, "db") {
		t.Errorf("api depends on %v, want db among them", deps)
	}
	var ports []string
	for _, o := range doc.Objects {
		if o.Object.GetKind() == "NetworkPolicy" && strings.Contains(o.Object.GetName(), "db") {
			ports = append(ports, fmt.Sprint(field(t, o.Object.Object, "spec.ingress.0.ports.0.port")))
		}
	}
	if !slices.Contains(ports, "5432") {
		t.Errorf("network policies to db allow ports %v, want 5432", ports)
	}
}
