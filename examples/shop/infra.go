// Package shop is a multi-tier Piceli example: a web front end, an API
// with its own service account, a background worker, a nightly report and
// a database with persistent storage, locked down by network policies.
// Its three images (web, api, db) are small Go servers in ./cmd, built
// offline by `piceli artifacts build`; the database is a stand-in for
// PostgreSQL (see README.md).
package shop

import "github.com/pynenc/piceli/app"

// Build declares the shop app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("shop")

	config := a.ConfigMap("shop-config",
		app.Data("LOG_LEVEL", ctx.Value("log_level")),
		app.Data("DATABASE_HOST", "db"),
		app.Data("DATABASE_USER", "shop"),
	)
	webConfig := a.ConfigMap("web-config", app.DataFile("config/index.html"))
	dbSecret := a.Secret("db-credentials", app.Generated("password", 32))

	db := database(a, ctx, dbSecret)
	api, apiScale := apiTier(a, ctx, config, dbSecret, db)
	web, ingress := webTier(a, ctx, webConfig, api)
	worker := a.Deployment("worker", backend(ctx, config, dbSecret,
		app.Args("worker"),
		app.Requests("100m", "128Mi"),
		app.DependsOn(db),
	)...)
	report := a.CronJob("nightly-report", "0 3 * * *", backend(ctx, config, dbSecret,
		app.Args("report"),
		app.BackoffLimit(2),
	)...)

	a.DefaultDeny()
	a.AllowFromAnywhere(web, 8080)
	a.AllowTraffic(web, api, 8080)
	for _, client := range []*app.Workload{api, worker, report} {
		a.AllowTraffic(client, db, 5432)
	}

	// What each environment changes, by handle: a misspelt one does not
	// compile. Values and namespaces differ in release.toml.
	a.Environment("dev",
		app.Drop(report),
		app.SetReplicas(web, 1),
		app.SetScale(apiScale, 1, 2),
		app.SetHost(ingress, "shop.example.com", "dev.shop.example.com"),
	)
	a.Environment("staging",
		app.SetScale(apiScale, 2, 4),
		app.SetHost(ingress, "shop.example.com", "staging.shop.example.com"),
	)
	a.Environment("prod",
		app.SetReplicas(web, 3),
		app.SetScale(apiScale, 3, 20),
		app.SetRequests(api, "250m", "256Mi"),
	)
	return a.Composition(ctx)
}

// database declares the database stand-in with a claim per pod and its
// headless Service.
func database(a *app.App, ctx *app.Context, secret *app.Secret) *app.Workload {
	db := a.StatefulSet("db",
		app.Image(ctx.Image("db")),
		app.NamedPort("postgres", 5432),
		app.Env("POSTGRES_USER", "shop"),
		app.Env("PGDATA", "/var/lib/postgresql/data/pgdata"),
		app.EnvFromSecret("POSTGRES_PASSWORD", secret, "password"),
		app.ClaimTemplate("data", "/var/lib/postgresql/data", app.Storage("5Gi")),
		app.Requests("250m", "256Mi"),
		app.Ready(app.TCP(5432)),
		app.Live(app.TCP(5432).After(30)),
	)
	a.Service(db, app.Headless())
	return db
}

// apiTier declares the API, its RBAC, Service and autoscaler.
func apiTier(a *app.App, ctx *app.Context, config *app.ConfigMap, secret *app.Secret, db *app.Workload) (*app.Workload, *app.Autoscaler) {
	sa := a.ServiceAccount("api")
	role := a.Role("api-config-reader", app.Permit("", "configmaps", "get", "list", "watch"))
	a.RoleBinding(role, sa)
	api := a.Deployment("api", backend(ctx, config, secret,
		app.NamedPort("http", 8080),
		app.Requests("100m", "128Mi"),
		app.Limits("1", "512Mi"),
		app.Ready(app.HTTPGet("/healthz", 8080)),
		app.Live(app.HTTPGet("/healthz", 8080).After(10)),
		app.RunAs(sa),
		app.DependsOn(db),
	)...)
	a.Service(api)
	return api, a.Autoscaler(api, 2, 10, app.CPUUtilization(70))
}

// webTier declares the front end, its Service, budget and Ingress.
func webTier(a *app.App, ctx *app.Context, config *app.ConfigMap, api *app.Workload) (*app.Workload, *app.Ingress) {
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Replicas(2),
		app.NamedPort("http", 8080),
		app.MountConfig(config, "/srv/shop"),
		app.Requests("50m", "64Mi"),
		app.Ready(app.HTTPGet("/", 8080)),
		app.DependsOn(api),
	)
	svc := a.Service(web, app.PortTo(80, 8080))
	a.DisruptionBudget(web, app.MinAvailable(1))
	return web, a.Ingress("shop",
		app.IngressClass("nginx"),
		app.Route("shop.example.com", "/", svc, 80),
	)
}

// backend returns the options the API image's workloads share, then extra.
func backend(ctx *app.Context, config *app.ConfigMap, secret *app.Secret, extra ...app.WorkloadOption) []app.WorkloadOption {
	return append([]app.WorkloadOption{
		app.Image(ctx.Image("api")),
		app.EnvFromConfig("LOG_LEVEL", config, "LOG_LEVEL"),
		app.EnvFromConfig("DATABASE_HOST", config, "DATABASE_HOST"),
		app.EnvFromConfig("DATABASE_USER", config, "DATABASE_USER"),
		app.EnvFromSecret("DATABASE_PASSWORD", secret, "password"),
	}, extra...)
}
