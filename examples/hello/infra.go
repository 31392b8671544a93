// Package hello is the Piceli quick start: one Deployment of a small Go web
// server (./web, built into an image by `piceli artifacts build`) and its
// Service.
package hello

import "github.com/pynenc/piceli/app"

// Build declares the hello app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("hello")
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Ports(8080),
		app.Ready(app.HTTPGet("/", 8080)),
	)
	a.Service(web, app.PortTo(80, 8080))
	return a.Composition(ctx)
}
