package importgen_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/importgen"
)

// A ConfigMap that was not made by the builders still becomes a builder
// call: its labels of its own are stated with app.Labels.
func ExampleGenerate() {
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "labels": map[string]any{"app": "web"}},
		"data":     map[string]any{"LEVEL": "info"},
	}}
	out, err := importgen.Generate(importgen.Input{
		App: "web", Module: "example.com/web", PiceliSource: "../piceli", Source: "k8s/settings.yaml",
		Target:  importgen.Target{Namespace: "web"},
		Objects: []importgen.Object{{Origin: "k8s/settings.yaml: document 1", Manifest: cm}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Forms)
	fmt.Print(string(out.Files["infra.go"]))
	// Output:
	// [builder]
	// // Package web describes the web app for Piceli; piceli import wrote it
	// // from k8s/settings.yaml. It is yours to edit: "piceli render --spec
	// // release.toml" shows the manifests it makes.
	// package web
	//
	// import "github.com/pynenc/piceli/app"
	//
	// // Build declares the imported objects.
	// func Build(ctx *app.Context) (*app.Composition, error) {
	// 	a := app.New("web")
	// 	a.ConfigMap(
	// 		"settings",
	// 		app.Data("LEVEL", "info"),
	// 		app.Labels(map[string]string{"app": "web"}),
	// 	)
	// 	return a.Composition(ctx)
	// }
}
