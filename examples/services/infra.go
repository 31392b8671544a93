// Package services is the micro-image example: three Go services, each
// built by `piceli artifacts build` into its own small image on one shared
// base layer, in front of a stateful key-value store built the same way (a
// stand-in for Redis), and a generated secret the gateway signs its
// session cookies with. The release takes the images by digest from the
// build, so changing one service's source rolls only its Deployment.
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
	// The gateway signs its session cookies with a key Piceli generates
	// once and keeps across releases; the value never passes through here.
	sessions := a.Secret("gateway-session", app.Generated("signing-key", 48))
	for _, name := range []string{"catalog", "orders", "gateway"} {
		opts := []app.WorkloadOption{
			app.Image(ctx.Image(name)),
			app.NamedPort("http", 8080),
			app.Ready(app.HTTPGet("/healthz", 8080)),
			app.DependsOn(cache),
		}
		if name == "gateway" {
			opts = append(opts, app.EnvFromSecret("SESSION_KEY", sessions, "signing-key"))
		}
		a.Service(a.Deployment(name, opts...), app.PortTo(80, 8080))
	}
	return a.Composition(ctx)
}
