// Package compare is the small multi-tier app of docs/comparison.md, in
// typed Go: a web front end, an API, PostgreSQL with a claim, shared
// configuration, a generated database password and network policies. The
// same app is written as a Helm chart and as a Kustomize base with an
// overlay beside this directory, and a test checks all three render the
// same objects in each environment (dev, staging and prod).
package compare

import "github.com/pynenc/piceli/app"

// Build declares the app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("shop")
	config := a.ConfigMap("shop-config",
		app.Data("LOG_LEVEL", ctx.Value("log_level")),
		app.Data("DATABASE_HOST", "db"),
	)
	password := a.Secret("db-credentials", app.Generated("password", 32))

	db := a.StatefulSet("db",
		app.Image(ctx.Image("postgres")),
		app.NamedPort("postgres", 5432),
		app.EnvFromSecret("POSTGRES_PASSWORD", password, "password"),
		app.ClaimTemplate("data", "/var/lib/postgresql/data", app.Storage(ctx.Value("db_storage"))),
		app.Ready(app.TCP(5432)),
	)
	a.Service(db, app.Headless())

	api := a.Deployment("api",
		app.Image(ctx.Image("api")),
		app.NamedPort("http", 8080),
		app.EnvFromConfig("LOG_LEVEL", config, "LOG_LEVEL"),
		app.EnvFromConfig("DATABASE_HOST", config, "DATABASE_HOST"),
		app.EnvFromSecret("DATABASE_PASSWORD", password, "password"),
		app.Ready(app.HTTPGet("/healthz", 8080)),
		app.DependsOn(db),
	)
	a.Service(api)

	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Replicas(2),
		app.NamedPort("http", 8080),
		app.Ready(app.HTTPGet("/", 8080)),
		app.DependsOn(api),
	)
	a.Service(web)

	a.DefaultDeny()
	a.AllowFromAnywhere(web, 8080)
	a.AllowTraffic(web, api, 8080)
	a.AllowTraffic(api, db, 5432)

	a.Environment("dev", app.SetReplicas(web, 1))
	a.Environment("staging")
	a.Environment("prod", app.SetReplicas(web, 3))
	return a.Composition(ctx)
}
