// Package platform is a consumer of a reusable component: its own Go
// module, which requires example.com/piceli-components/postgres through
// go.mod (see go.mod and README.md) and declares the shop's API on top of
// the database that component declares.
package platform

import (
	"example.com/piceli-components/postgres"

	"github.com/pynenc/piceli/app"
)

// Build declares the API and its database.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("platform")
	db := postgres.Add(a, "orders-db",
		postgres.Image(ctx.Image("postgres")),
		postgres.Storage(ctx.Value("db_storage")),
		postgres.DatabaseName("orders"),
	)
	api := a.Deployment("api",
		app.Image(ctx.Image("api")),
		app.NamedPort("http", 8080),
		app.Env("LOG_LEVEL", "info"),
		app.Env("DATABASE_HOST", db.Host()),
		app.Env("DATABASE_USER", db.User),
		app.EnvFromSecret("DATABASE_PASSWORD", db.Secret, postgres.PasswordKey),
		app.Ready(app.HTTPGet("/healthz", 8080)),
		app.DependsOn(db.Workload),
	)
	a.Service(api)

	a.DefaultDeny()
	a.AllowFromAnywhere(api, 8080)
	a.AllowTraffic(api, db.Workload, db.Port)
	return a.Composition(ctx)
}
