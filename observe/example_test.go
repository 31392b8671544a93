package observe_test

import (
	"context"
	"fmt"
	"log"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/observe"
)

// A program reads a session archive, connects to the cluster it names
// (explicit kubeconfig and context) and prints each object's state.
func ExampleStatus() {
	ctx := context.Background()
	a, err := observe.ReadArchive("20261201-120000-a1b2c3.archive.json") // piceli release archive --out . wrote it as RUN.archive.json
	if err != nil {
		log.Fatal(err)
	}
	cl, err := observe.Connect(ctx, observe.Target{Kubeconfig: "shop.kubeconfig", Context: "kind-shop"})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := observe.Status(ctx, cl, a, observe.StatusOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range rep.Objects {
		fmt.Println(o.Object, o.State, o.Readiness)
	}
}

// Reconcile is the pure core of Status: the archive and what the LISTs
// found in, the report out.
func ExampleReconcile() {
	a := &observe.Archive{Schema: observe.ArchiveSchema, Namespaces: []string{"shop"}, Objects: []observe.ArchivedObject{
		{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "config"}, APIVersion: "v1", Resource: "configmaps", Declared: true},
		{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "gone"}, APIVersion: "v1", Resource: "configmaps", Declared: true},
	}}
	cm := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "shop"}}}
	}
	rep := observe.Reconcile(a, observe.ClusterInfo{Same: true}, []observe.Listing{{
		Kind:      observe.Kind{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		Namespace: "shop",
		Items:     []*unstructured.Unstructured{cm("config"), cm("extra")},
	}})
	for _, o := range rep.Objects {
		fmt.Println(o.Object, o.State)
	}
	fmt.Println("healthy:", rep.Healthy())
	// Output:
	// ConfigMap/shop/config present
	// ConfigMap/shop/extra undeclared
	// ConfigMap/shop/gone missing
	// healthy: false
}
