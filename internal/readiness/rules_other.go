package readiness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// jobStatus: Complete is current, Failed is failed, anything else (running,
// suspended, not started) is in progress. kstatus calls a running Job
// current; Piceli waits for it to finish so later stages can rely on it.
func jobStatus(obj *unstructured.Unstructured) Result {
	if c, ok := conditionOf(obj, "Failed"); ok && c.Status == "True" {
		return failed("job failed: " + c.explain())
	}
	if isTrue(obj, "Complete") {
		return current("job complete")
	}
	if isTrue(obj, "Suspended") {
		return inProgress("job suspended")
	}
	return inProgress(jobProgress(obj))
}

// jobProgress counts a running Job's pods.
func jobProgress(obj *unstructured.Unstructured) string {
	count := func(field string) int64 {
		n, _, _ := unstructured.NestedInt64(obj.Object, "status", field)
		return n
	}
	return fmt.Sprintf("job running: %d active, %d succeeded, %d failed", count("active"), count("succeeded"), count("failed"))
}

// serviceStatus: a LoadBalancer Service waits for an ingress address; every
// other Service is current.
func serviceStatus(obj *unstructured.Unstructured) Result {
	typ, _, _ := unstructured.NestedString(obj.Object, "spec", "type")
	if typ != "LoadBalancer" {
		return current("service is ready")
	}
	ingress, _, _ := unstructured.NestedSlice(obj.Object, "status", "loadBalancer", "ingress")
	if len(ingress) == 0 {
		return inProgress("waiting for a load balancer ingress address")
	}
	return current("load balancer has an ingress address")
}

// namespaceStatus: an Active Namespace is current.
func namespaceStatus(obj *unstructured.Unstructured) Result {
	phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
	switch phase {
	case "Active":
		return current("namespace is active")
	case "":
		return inProgress("namespace phase not yet reported")
	}
	return inProgress("namespace is " + phase)
}
