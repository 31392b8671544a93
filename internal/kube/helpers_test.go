package kube

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// obj builds a minimal object; namespace "" leaves metadata.namespace unset.
func obj(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(namespace)
	return u
}

// crd builds a CustomResourceDefinition for kind in group with plural,
// scope, and versions (name -> served).
func crd(group, kind, plural, scope string, versions ...crdVersion) *unstructured.Unstructured {
	u := obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", plural+"."+group)
	vs := make([]any, len(versions))
	for i, v := range versions {
		vs[i] = map[string]any{
			"name": v.name, "served": v.served, "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object", "x-kubernetes-preserve-unknown-fields": true,
			}},
		}
	}
	u.Object["spec"] = map[string]any{
		"group":    group,
		"scope":    scope,
		"names":    map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind), "listKind": kind + "List"},
		"versions": vs,
	}
	return u
}

type crdVersion struct {
	name   string
	served bool
}

// declared pairs objects with origins "in.yaml:1", "in.yaml:2", ...
func declared(objs ...*unstructured.Unstructured) []object.Declared {
	out := make([]object.Declared, len(objs))
	for i, o := range objs {
		out[i] = object.Declared{Origin: "in.yaml:" + strconv.Itoa(i+1), Object: o}
	}
	return out
}
