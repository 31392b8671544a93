package app_test

import (
	"fmt"

	"github.com/pynenc/piceli/app"
)

// Build is the quick start composition.
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

// The quick start: a Deployment and its Service, labelled and selected
// consistently by construction.
func Example() {
	ctx := app.NewContext(app.ContextDocument{
		Schema:    app.ContextSchema,
		Release:   "hello",
		Namespace: "hello",
		Images:    map[string]string{"web": "docker.io/library/nginx@sha256:0123"},
	})
	c, err := Build(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range c.Objects() {
		labels := o.Object.GetLabels()
		fmt.Println(o.Origin, o.Object.GetKind(), labels[app.LabelName], labels[app.LabelPartOf])
	}
	web := c.Components()[0]
	fmt.Println(web.Name, web.Kind, web.Ports[0].Port, web.Readiness)
	// Output:
	// component web Deployment web hello
	// component web Service web hello
	// web Deployment 80 http GET :80/
}

// Errors name the component and the field; all of them come back at once.
func ExampleApp_Composition() {
	ctx := app.NewContext(app.ContextDocument{Schema: app.ContextSchema})
	a := app.New("hello")
	a.Deployment("web", app.Image(ctx.Image("web")), app.Ports(70000))
	_, err := a.Composition(ctx)
	fmt.Println(err)
	// Output:
	// deployment "web": port 70000 out of range 1-65535
	// deployment "web": image is empty
	// image "web" is not declared in [images] of release.toml
}

// A Secret is declared by where its values come from, never by value.
func ExampleApp_Secret() {
	a := app.New("shop")
	db := a.Secret("db", app.Generated("password", 32), app.FromEnv("api-key", "API_KEY"))
	a.Deployment("api", app.Image("example.com/api@sha256:0123"),
		app.EnvFromSecret("DB_PASSWORD", db, "password"))
	c, _ := a.Composition(nil)
	for _, k := range c.Secrets()[0].Keys {
		fmt.Println(k.Key, k.Source, k.Ref, k.Length)
	}
	fmt.Println(c.Objects()[0].Object.GetAnnotations()[app.AnnotationSecretKeys])
	// Output:
	// password generated  32
	// api-key env API_KEY 0
	// api-key,password
}
