// Package services is the micro-image example: three Go services, each
// built by `piceli artifacts build` into its own small image on one shared
// base layer, in front of a stateful key-value store whose image is pinned.
// The release takes the three images by digest from the build, so changing
// one service's source rolls only its Deployment.
package services

import "github.com/pynenc/piceli/app"

// Build declares the services app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("services")
	cache := a.StatefulSet("cache",
		app.Image(ctx.Image("cache")),
		app.NamedPort("redis", 6379),
		app.Ready(app.TCP(6379)),
	)
	a.Service(cache, app.Headless())
	for _, name := range []string{"catalog", "orders", "gateway"} {
		svc := a.Deployment(name,
			app.Image(ctx.Image(name)),
			app.NamedPort("http", 8080),
			app.Ready(app.HTTPGet("/healthz", 8080)),
			app.DependsOn(cache),
		)
		a.Service(svc, app.PortTo(80, 8080))
	}
	return a.Composition(ctx)
}
