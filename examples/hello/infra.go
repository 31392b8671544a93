// Package hello is the Piceli quick start: one nginx Deployment and its
// Service.
package hello

import "github.com/pynenc/piceli/app"

// Build declares the hello app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("hello")
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Ports(80),
		app.Ready(app.HTTPGet("/", 80)),
	)
	a.Service(web, app.Port(80))
	return a.Composition(ctx)
}
