package importgen_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/importgen"
)

// A ConfigMap that was not made by the builders becomes a typed literal,
// returned by a function in a file of its kind.
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
	fmt.Print(string(out.Files["configmap.go"]))
	// Output:
	// [literal]
	// package web
	//
	// import (
	// 	corev1 "k8s.io/api/core/v1"
	// 	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	// )
	//
	// // settingsConfigMap returns ConfigMap/settings as it was imported.
	// func settingsConfigMap() *corev1.ConfigMap {
	// 	return &corev1.ConfigMap{
	// 		ObjectMeta: metav1.ObjectMeta{Name: "settings", Labels: map[string]string{"app": "web"}},
	// 		Data:       map[string]string{"LEVEL": "info"},
	// 	}
	// }
}
