// Package postgres is a reusable Piceli component: a PostgreSQL server as
// a StatefulSet with its own data claim, the headless Service that names
// it, and a generated password Secret, declared on the consumer's App by
// one call.
//
//	db := postgres.Add(a, "db", postgres.Image(ctx.Image("postgres")), postgres.Storage("20Gi"))
//	api := a.Deployment("api", app.Image(ctx.Image("api")),
//		app.Env("DATABASE_HOST", db.Host()),
//		app.EnvFromSecret("DATABASE_PASSWORD", db.Secret, postgres.PasswordKey),
//		app.DependsOn(db.Workload))
//	a.AllowTraffic(api, db.Workload, db.Port)
//
// It is its own Go module, versioned by git tags and required by a
// consumer's go.mod like any library; docs/packages.md in the Piceli
// repository describes the pattern. A bad option is reported through the
// App, so the consumer's Composition returns it with every other error.
package postgres

import (
	"strings"

	"github.com/pynenc/piceli/app"
)

// Port is the port PostgreSQL listens on.
const Port = 5432

// PasswordKey is the key of the generated password in Database.Secret.
const PasswordKey = "password"

// DataPath is where the data claim is mounted; PGDATA is a directory
// below it, as the official image advises for a volume's root.
const DataPath = "/var/lib/postgresql/data"

// Database is the typed handle Add returns: what a consumer wires its own
// components to.
type Database struct {
	// Workload is the StatefulSet: pass it to app.DependsOn and
	// App.AllowTraffic.
	Workload *app.Workload
	// Service is the headless Service that gives the pod its name.
	Service *app.Service
	// Secret holds the generated password under PasswordKey.
	Secret *app.Secret
	// Port is the port clients connect to (Port).
	Port int
	// DatabaseName and User are what the server creates at first start.
	DatabaseName, User string
}

// Host returns the name clients reach the server by, inside the
// release's namespace.
func (d *Database) Host() string { return d.Service.Name() }

// Add declares a PostgreSQL server named name on a: the StatefulSet and
// headless Service named name and the Secret name+"-credentials". Options
// it does not receive take their defaults (see the Default constants);
// Image is required. What is wrong with the options is recorded on a,
// each message naming the component and the option, and returned by
// a.Composition; the returned handles are usable either way.
func Add(a *app.App, name string, opts ...Option) *Database {
	c := defaults()
	c.database = defaultDatabase(name)
	for _, o := range opts {
		o(&c)
	}
	for _, msg := range c.problems() {
		a.Errorf("postgres %q: %s", name, msg)
	}
	secret := a.Secret(name+"-credentials", app.Generated(PasswordKey, c.passwordLength))
	claim := []app.ClaimOption{app.Storage(c.storage)}
	if c.storageClass != "" {
		claim = append(claim, app.StorageClass(c.storageClass))
	}
	set := a.StatefulSet(name,
		app.Image(c.image),
		app.NamedPort("postgres", Port),
		app.Env("POSTGRES_USER", c.user),
		app.Env("POSTGRES_DB", c.database),
		app.Env("PGDATA", DataPath+"/pgdata"),
		app.EnvFromSecret("POSTGRES_PASSWORD", secret, PasswordKey),
		app.ClaimTemplate("data", DataPath, claim...),
		app.Requests(c.cpuRequest, c.memoryRequest),
		app.Limits("", c.memoryLimit),
		app.Ready(app.TCP(Port)),
	)
	service := a.Service(set, app.Headless())
	return &Database{Workload: set, Service: service, Secret: secret, Port: Port, DatabaseName: c.database, User: c.user}
}

// defaultDatabase is the database named after the component: lower case,
// with every character outside a-z, 0-9 and _ as _.
func defaultDatabase(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "db_" + s
	}
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}
