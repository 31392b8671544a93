package sandbox

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resources of the kwok CRDs every sandbox enables.
var (
	PortForwardResource        = kwokResource("portforwards")
	LogsResource               = kwokResource("logs")
	ClusterPortForwardResource = kwokResource("clusterportforwards")
	ClusterLogsResource        = kwokResource("clusterlogs")
)

func kwokResource(plural string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: plural}
}

// PortForward tells kwok to send port-forward connections to port of the
// pod namespace/pod to target instead. It refuses no target itself: callers
// keep targets on loopback.
func PortForward(namespace, pod string, port int32, target netip.AddrPort) *unstructured.Unstructured {
	return kwokObject("PortForward", namespace, pod, map[string]any{
		"forwards": []any{map[string]any{
			"ports":  []any{int64(port)},
			"target": map[string]any{"port": int64(target.Port()), "address": target.Addr().String()},
		}},
	})
}

// PodLogs tells kwok to serve the logs of every container of namespace/pod
// from file, which must be in CRI log format
// ("2026-01-01T00:00:00.000000000Z stdout F message").
func PodLogs(namespace, pod, file string) *unstructured.Unstructured {
	return kwokObject("Logs", namespace, pod, map[string]any{
		"logs": []any{map[string]any{"logsFile": file}}, // no containers: every container
	})
}

// kwokObject builds a namespaced kwok object; kwok matches it to the pod of
// the same name.
func kwokObject(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}
