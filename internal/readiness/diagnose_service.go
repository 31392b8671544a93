package readiness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// loadBalancerLines explains a LoadBalancer Service without an ingress
// address: a controller must assign one, and none did, for the Service's
// load-balancer class when it names one. Any other Service is always
// ready and gets none.
func loadBalancerLines(svc *unstructured.Unstructured) []string {
	typ, _, _ := unstructured.NestedString(svc.Object, "spec", "type")
	ingress, _, _ := unstructured.NestedSlice(svc.Object, "status", "loadBalancer", "ingress")
	if typ != "LoadBalancer" || len(ingress) > 0 {
		return nil
	}
	if class, _, _ := unstructured.NestedString(svc.Object, "spec", "loadBalancerClass"); class != "" {
		return []string{fmt.Sprintf("no load-balancer address was assigned: no controller of load-balancer class %q set status.loadBalancer.ingress", class)}
	}
	return []string{"no load-balancer address was assigned: no load-balancer controller set status.loadBalancer.ingress (the cluster may run none)"}
}
