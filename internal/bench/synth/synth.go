// Package synth generates the synthetic releases the benchmark measures:
// the same objects as YAML files and from a Go composition.
package synth

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Mix names which kinds a synthetic release holds.
type Mix string

// The mixes the benchmark measures.
const (
	// ConfigMaps holds ConfigMaps only.
	ConfigMaps Mix = "configmaps"
	// Mixed holds, per 10 objects, 3 ConfigMaps, 2 Secrets, 2
	// ServiceAccounts, 2 headless Services and 1 one-replica Deployment.
	Mixed Mix = "mixed"
)

// Image is the image of every synthetic Deployment. The sandbox's nodes are
// fake (kwok): nothing is pulled, so any pinned reference will do.
const Image = "docker.io/library/nginx@sha256:f19a2d727fd7e5c2b0607bfc11f32c4cc53ab1becc06abfe3b7a6a9bee6d98b7"

// mixedCycle is the kind of each object in a cycle of 10 of the Mixed mix.
var mixedCycle = [10]string{"ConfigMap", "Secret", "ServiceAccount", "ConfigMap", "Service", "Deployment", "ConfigMap", "Secret", "ServiceAccount", "Service"}

// Objects returns the n objects of a synthetic release, without a
// namespace (the release's target namespace is theirs), in a stable order.
// An unknown mix is an error.
func Objects(mix Mix, n int) ([]*unstructured.Unstructured, error) {
	if mix != ConfigMaps && mix != Mixed {
		return nil, fmt.Errorf("unknown mix %q: want %q or %q", mix, ConfigMaps, Mixed)
	}
	out := make([]*unstructured.Unstructured, n)
	for i := range n {
		kind := "ConfigMap"
		if mix == Mixed {
			kind = mixedCycle[i%len(mixedCycle)]
		}
		out[i] = object(kind, i)
	}
	return out, nil
}

// Deployments counts the Deployments among the n objects of mix.
func Deployments(mix Mix, n int) int {
	count := 0
	for i := range n {
		if mix == Mixed && mixedCycle[i%len(mixedCycle)] == "Deployment" {
			count++
		}
	}
	return count
}

func object(kind string, i int) *unstructured.Unstructured {
	name := fmt.Sprintf("%s-%05d", short[kind], i)
	switch kind {
	case "Secret":
		return build("v1", kind, name, map[string]any{"type": "Opaque", "stringData": map[string]any{"token": fmt.Sprintf("synthetic-%05d", i)}})
	case "ServiceAccount":
		return build("v1", kind, name, nil)
	case "Service":
		return build("v1", kind, name, map[string]any{"spec": map[string]any{
			"clusterIP": "None", // headless: the sandbox's service range holds 254 addresses
			"selector":  map[string]any{"app": name},
			"ports":     []any{map[string]any{"name": "http", "port": int64(80), "targetPort": int64(80), "protocol": "TCP"}},
		}})
	case "Deployment":
		return deployment(name)
	}
	return build("v1", "ConfigMap", name, map[string]any{"data": map[string]any{
		"index": fmt.Sprint(i), "mode": "benchmark", "payload": fmt.Sprintf("value-%05d-of-a-synthetic-release", i),
	}})
}

var short = map[string]string{"ConfigMap": "cm", "Secret": "secret", "ServiceAccount": "sa", "Service": "svc", "Deployment": "deploy"}

func build(apiVersion, kind, name string, fields map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "labels": map[string]any{"bench": "synthetic"}}}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

func deployment(name string) *unstructured.Unstructured {
	labels := map[string]any{"app": name}
	return build("apps/v1", "Deployment", name, map[string]any{"spec": map[string]any{
		"replicas": int64(1),
		"selector": map[string]any{"matchLabels": labels},
		"template": map[string]any{
			"metadata": map[string]any{"labels": labels},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "web", "image": Image,
				"ports": []any{map[string]any{"containerPort": int64(80), "protocol": "TCP"}},
			}}},
		},
	}})
}
